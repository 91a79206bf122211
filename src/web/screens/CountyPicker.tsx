import { useId } from "react"
import { ROMANIAN_COUNTIES } from "../../domain/tenders/Counties.js"
import { FieldReasons } from "../components/ui.js"
import { t } from "../strings.js"

/**
 * Counties picked from the 41 and București: the chosen ones as removable chips, the rest in a
 * list to add from (a company's counties, a watchlist's county filter). `reasons` (AppError.reasonsFor)
 * marks the counties refused, as Field marks a control: the reasons beside the picker, and its list
 * aria-invalid and described by them.
 */
export const CountyPicker = (props: {
  readonly value: ReadonlyArray<string>
  readonly onChange: (counties: ReadonlyArray<string>) => void
  readonly testId: string
  readonly reasons?: ReadonlyArray<string> | undefined
}) => {
  const reasonsId = useId()
  const refused = props.reasons !== undefined
  return (
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
        aria-invalid={refused || undefined}
        aria-describedby={refused ? reasonsId : undefined}
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
      <FieldReasons id={reasonsId} reasons={props.reasons} />
    </div>
  )
}
