import { type FormEvent, useState } from "react"
import { useServices } from "../AppContext.js"
import { Empty, ErrorBox, Field, Loading, loadedTitle, Notice, ScoreInput, ScreenHeading } from "../components/ui.js"
import { amountInput, changedFields, keywordsInput, parseAmount, splitKeywords } from "../FormInputs.js"
import { formatAmount } from "../format.js"
import { useAction, useFocusOnMount, useInlineForm, useLoad, useRemovalFocus } from "../hooks.js"
import { Link, paths } from "../router.js"
import { t } from "../strings.js"
import { CountyPicker } from "./CountyPicker.js"
import { CpvPicker } from "./CpvPicker.js"

interface Watchlist {
  readonly id: string
  readonly name: string
  readonly cpvCodes: ReadonlyArray<string>
  readonly keywords: ReadonlyArray<string>
  readonly minValue: number | null
  readonly maxValue: number | null
  readonly authorityId: string | null
  readonly minScore: number
  readonly counties: ReadonlyArray<string>
  readonly companyId: string
}

/**
 * The Romanian labels of these CPV codes, by the CPV search (a full `NNNNNNNN-D` code finds exactly
 * itself), one request per distinct code; a code the table lacks has no label.
 */
const useCpvLabels = (codes: ReadonlyArray<string>) => {
  const { call } = useServices()
  const key = [...new Set(codes)].sort().join(",")
  return useLoad(async () => {
    const unique = key === "" ? [] : key.split(",")
    const found = await Promise.all(
      unique.map((code) =>
        call((c) => c.cpv.search({ urlParams: { q: code, limit: 1 } })).then((r) =>
          r.data.find((entry) => entry.code === code)
        )
      )
    )
    return new Map(found.flatMap((entry) => (entry ? [[entry.code, entry.labelRo] as const] : [])))
  }, [key])
}

export const WatchlistsScreen = ({ companyId }: { readonly companyId: string }) => {
  const { call } = useServices()
  const company = useLoad(
    () => call((c) => c.companies.get({ path: { id: companyId } })).then((r) => r.data),
    [companyId]
  )
  const watchlists = useLoad(
    () => call((c) => c.watchlists.list()).then((r) => r.data.filter((w) => w.companyId === companyId)),
    [companyId]
  )
  const labels = useCpvLabels((watchlists.data ?? []).flatMap((w) => w.cpvCodes)).data
  const { editing, open, setEditing, addButton } = useInlineForm<Watchlist | "new">()
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const action = useAction()
  const removalFocus = useRemovalFocus(addButton)

  const remove = async (watchlist: Watchlist) => {
    if (!window.confirm(t.watchlists.confirmDelete(watchlist.name))) return
    removalFocus.start()
    const done = await action.run(() =>
      call((c) => c.watchlists.remove({ path: { id: watchlist.id } })).then(() => true)
    )
    if (!done) removalFocus.failed()
    else {
      setNotice(t.watchlists.deleted)
      // An editor left open for the deleted list could only fail to save (404) and lose its changes.
      setEditing((current) => (current !== "new" && current?.id === watchlist.id ? undefined : current))
      watchlists.reload()
    }
  }

  return (
    <section>
      <div className="heading">
        <div>
          <ScreenHeading
            title={loadedTitle(company, (loaded) => t.watchlists.title(loaded.name), t.watchlists.titleWithoutCompany)}
          />
          <p className="muted">{t.watchlists.intro}</p>
        </div>
        {editing === undefined && (
          <button
            type="button"
            className="primary"
            ref={addButton}
            onClick={() => open("new")}
            data-testid="add-watchlist"
          >
            {t.watchlists.add}
          </button>
        )}
      </div>
      <p>
        <Link to={paths.tenders(companyId)}>← {t.tenders.back}</Link>
      </p>
      <ErrorBox error={company.error} onRetry={company.reload} />
      <Notice text={notice} />
      <ErrorBox error={action.error} />
      {editing !== undefined && (
        <WatchlistForm
          // A form per watchlist: its fields start from the one being edited, not from the last one opened.
          key={editing === "new" ? "new" : editing.id}
          companyId={companyId}
          watchlist={editing === "new" ? undefined : editing}
          labels={labels}
          onDone={(saved) => {
            setEditing(undefined)
            if (saved) {
              setNotice(t.watchlists.saved)
              watchlists.reload()
            }
          }}
        />
      )}
      <ErrorBox error={watchlists.error} onRetry={watchlists.reload} />
      {watchlists.data === undefined ? (
        watchlists.loading && <Loading />
      ) : watchlists.data.length === 0 ? (
        <Empty>{t.watchlists.empty}</Empty>
      ) : (
        <ul className="cards" data-testid="watchlists">
          {watchlists.data.map((w) => (
            <li key={w.id} className="card" data-testid="watchlist">
              <div className="card-head">
                <span className="title">{w.name}</span>
                <span className="muted small">
                  {t.watchlists.minScore}: {w.minScore}
                </span>
              </div>
              {w.cpvCodes.length > 0 && (
                <div className="small">
                  {t.watchlists.cpv}:
                  <ul className="cpv-labels" data-testid="watchlist-cpv">
                    {w.cpvCodes.map((code) => (
                      <li key={code} data-code={code}>
                        <code>{code}</code> <span data-testid="cpv-label">{labels?.get(code) ?? ""}</span>
                      </li>
                    ))}
                  </ul>
                </div>
              )}
              {w.counties.length > 0 && (
                <p className="small" data-testid="watchlist-counties">
                  {t.watchlists.countiesShown(w.counties.join(", "))}
                </p>
              )}
              {w.keywords.length > 0 && (
                <p className="small">
                  {t.watchlists.keywords}: {keywordsInput(w.keywords)}
                </p>
              )}
              <p className="small muted">
                {w.minValue === null && w.maxValue === null
                  ? t.watchlists.anyValue
                  : t.watchlists.valueRange(
                      w.minValue === null ? "0" : formatAmount(w.minValue, "RON"),
                      w.maxValue === null ? "∞" : formatAmount(w.maxValue, "RON")
                    )}
              </p>
              <div className="actions">
                <button type="button" className="link" onClick={() => open(w)}>
                  {t.edit}
                </button>
                <button type="button" className="link danger" onClick={() => remove(w)} disabled={action.pending}>
                  {t.delete}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

const WatchlistForm = (props: {
  readonly companyId: string
  readonly watchlist: Watchlist | undefined
  readonly labels: ReadonlyMap<string, string> | undefined
  readonly onDone: (saved: boolean) => void
}) => {
  const { call } = useServices()
  const w = props.watchlist
  const [name, setName] = useState(w?.name ?? "")
  const [cpvCodes, setCpvCodes] = useState<ReadonlyArray<string>>(w?.cpvCodes ?? [])
  const [keywords, setKeywords] = useState(keywordsInput(w?.keywords ?? []))
  const [minValue, setMinValue] = useState(amountInput(w?.minValue))
  const [maxValue, setMaxValue] = useState(amountInput(w?.maxValue))
  const [authorityId, setAuthorityId] = useState(w?.authorityId ?? "")
  const [minScore, setMinScore] = useState(String(w?.minScore ?? 60))
  const [counties, setCounties] = useState<ReadonlyArray<string>>(w?.counties ?? [])
  const action = useAction()
  const firstField = useFocusOnMount<HTMLInputElement>()
  // The server's reasons for a refused field, shown beside it.
  const refused = (field: string) => action.error?.reasonsFor(field)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const fields = {
      name: name.trim(),
      cpvCodes: [...cpvCodes],
      keywords: splitKeywords(keywords),
      minValue: parseAmount(minValue),
      maxValue: parseAmount(maxValue),
      authorityId: authorityId.trim() === "" ? null : authorityId.trim(),
      minScore: Number(minScore),
      counties: [...counties]
    }
    const saved = await action.run(() =>
      w === undefined
        ? call((c) => c.watchlists.create({ payload: { ...fields, companyId: props.companyId } }))
        : call((c) => c.watchlists.update({ path: { id: w.id }, payload: changedFields(fields, w) }))
    )
    if (saved) props.onDone(true)
  }

  return (
    <form className="card form" onSubmit={submit} data-testid="watchlist-form">
      <Field label={t.watchlists.name} reasons={refused("name")}>
        <input
          name="name"
          ref={firstField}
          required
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </Field>
      <div className="field">
        <span className="field-label">{t.watchlists.cpv}</span>
        <CpvPicker value={cpvCodes} onChange={setCpvCodes} labels={props.labels} reasons={refused("cpvCodes")} />
      </div>
      <div className="field">
        <span className="field-label">{t.watchlists.counties}</span>
        <CountyPicker
          value={counties}
          onChange={setCounties}
          testId="watchlist-counties-picker"
          reasons={refused("counties")}
        />
        <span className="hint">{t.watchlists.countiesHint}</span>
      </div>
      <Field label={t.watchlists.keywords} hint={t.watchlists.keywordsHint} reasons={refused("keywords")}>
        <input name="keywords" value={keywords} onChange={(e) => setKeywords(e.target.value)} />
      </Field>
      <div className="row">
        <Field label={t.watchlists.minValue} reasons={refused("minValue")}>
          <input name="minValue" inputMode="decimal" value={minValue} onChange={(e) => setMinValue(e.target.value)} />
        </Field>
        <Field label={t.watchlists.maxValue} reasons={refused("maxValue")}>
          <input name="maxValue" inputMode="decimal" value={maxValue} onChange={(e) => setMaxValue(e.target.value)} />
        </Field>
      </div>
      <div className="row">
        <Field label={t.watchlists.minScore} reasons={refused("minScore")}>
          <ScoreInput name="minScore" value={minScore} onValue={setMinScore} />
        </Field>
        <Field label={t.watchlists.authority} reasons={refused("authorityId")}>
          <input name="authorityId" value={authorityId} onChange={(e) => setAuthorityId(e.target.value)} />
        </Field>
      </div>
      <ErrorBox error={action.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={action.pending} data-testid="save-watchlist">
          {t.save}
        </button>
        <button type="button" onClick={() => props.onDone(false)}>
          {t.cancel}
        </button>
      </div>
    </form>
  )
}
