import { ROMANIAN_COUNTIES } from "../../domain/tenders/Counties.js"
import { t } from "../strings.js"

/**
 * Counties picked from the 41 and București: the chosen ones as removable chips, the rest in a
 * list to add from (a company's counties, a watchlist's county filter).
 */
export const CountyPicker = (props: {
  readonly value: ReadonlyArray<string>
  readonly onChange: (counties: ReadonlyArray<string>) => void
  readonly testId: string
}) => (
  <div className="county-picker" data-testid={props.testId}>
    {props.value.length > 0 && (
      <ul className="chips" data-testid="county-chosen">
        {props.value.map((county) => (
          <li key={county} className="chip">
            {county}
            <button
              type="button"
              aria-label={t.counties.remove(county)}
              onClick={() => props.onChange(props.value.filter((c) => c !== county))}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
    )}
    <select
      aria-label={t.counties.add}
      value=""
      onChange={(e) => {
        if (e.target.value !== "") props.onChange([...props.value, e.target.value])
      }}
      data-testid="county-add"
    >
      <option value="">{t.counties.add}</option>
      {ROMANIAN_COUNTIES.filter((county) => !props.value.includes(county)).map((county) => (
        <option key={county} value={county}>
          {county}
        </option>
      ))}
    </select>
  </div>
)
