import { useEffect, useId, useState } from "react"
import { useServices } from "../AppContext.js"
import { ErrorBox, FieldReasons } from "../components/ui.js"
import { useLoad } from "../hooks.js"
import { t } from "../strings.js"

const SEARCH_DELAY_MS = 250

/**
 * Picks CPV codes by searching the Romanian and English labels (or a code's first digits) over the
 * server's CPV table; the chosen codes show as removable chips with their Romanian labels (those
 * of `labels`, the codes already saved, and of the results picked here). `reasons`
 * (AppError.reasonsFor) marks the codes refused, as CountyPicker does: the reasons beside the picker,
 * and its search box aria-invalid and described by them.
 */
export const CpvPicker = (props: {
  readonly value: ReadonlyArray<string>
  readonly onChange: (codes: ReadonlyArray<string>) => void
  readonly labels?: ReadonlyMap<string, string> | undefined
  readonly reasons?: ReadonlyArray<string> | undefined
}) => {
  const { call } = useServices()
  const reasonsId = useId()
  const refused = props.reasons !== undefined
  const [picked, setPicked] = useState<ReadonlyMap<string, string>>(new Map())
  const labelOf = (code: string) => picked.get(code) ?? props.labels?.get(code)
  const [query, setQuery] = useState("")
  const [debounced, setDebounced] = useState("")
  useEffect(() => {
    const timer = window.setTimeout(() => setDebounced(query.trim()), SEARCH_DELAY_MS)
    return () => window.clearTimeout(timer)
  }, [query])
  const results = useLoad(
    () =>
      debounced === ""
        ? Promise.resolve(undefined)
        : call((c) => c.cpv.search({ urlParams: { q: debounced, limit: 12 } })).then((r) => ({
            q: debounced,
            entries: r.data
          })),
    [debounced]
  )
  const add = (code: string, labelRo: string) => {
    setPicked((labels) => new Map(labels).set(code, labelRo))
    if (!props.value.includes(code)) props.onChange([...props.value, code])
    setQuery("")
  }
  return (
    <div className="cpv-picker">
      {props.value.length > 0 && (
        <ul className="chips" data-testid="cpv-chosen">
          {props.value.map((code) => (
            <li key={code} className="chip">
              <code>{code}</code>
              {labelOf(code) && <span className="chip-label">{labelOf(code)}</span>}
              <button
                type="button"
                aria-label={t.watchlists.cpvRemove(code)}
                onClick={() => props.onChange(props.value.filter((c) => c !== code))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <input
        type="search"
        value={query}
        placeholder={t.watchlists.cpvSearchPlaceholder}
        aria-label={t.watchlists.cpvSearch}
        aria-invalid={refused || undefined}
        aria-describedby={refused ? reasonsId : undefined}
        onChange={(e) => setQuery(e.target.value)}
        data-testid="cpv-search"
      />
      <FieldReasons id={reasonsId} reasons={props.reasons} />
      <ErrorBox error={results.error} />
      {/* Only the results of what the box says: never a list left from an earlier query (after a pick,
          while typing, or for the one render between a new query and its load starting). */}
      {results.data !== undefined && results.data.q === query.trim() && !results.loading && (
        <ul className="cpv-results" data-testid="cpv-results">
          {results.data.entries.length === 0 && <li className="muted">{t.watchlists.cpvNoResults}</li>}
          {results.data.entries.map((entry) => (
            <li key={entry.code}>
              <button
                type="button"
                onClick={() => add(entry.code, entry.labelRo)}
                data-testid="cpv-result"
                data-code={entry.code}
              >
                <code>{entry.code}</code> <span>{entry.labelRo}</span>
                <span className="muted small"> · {entry.labelEn}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
