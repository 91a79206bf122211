import { type FormEvent, useState } from "react"
import { useServices } from "../AppContext.js"
import { Empty, ErrorBox, Field, Loading, Notice, ScreenHeading } from "../components/ui.js"
import { changedFields } from "../FormInputs.js"
import { useAction, useFocusOnMount, useInlineForm, useLoad } from "../hooks.js"
import { Link, paths } from "../router.js"
import { t } from "../strings.js"
import { CountyPicker } from "./CountyPicker.js"

interface CompanyDraft {
  readonly name: string
  readonly fiscalCode: string
  readonly description: string
  readonly counties: ReadonlyArray<string>
}

interface Company {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly fiscalCode: string | null
  readonly counties: ReadonlyArray<string>
  readonly active: boolean
  readonly watchlistCount: number
}

export const CompaniesScreen = () => {
  const { call } = useServices()
  const companies = useLoad(() => call((c) => c.companies.list()).then((r) => r.data), [])
  const { editing, open, setEditing, addButton } = useInlineForm<Company | "new">()
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const action = useAction()

  const toggleActive = async (company: Company) => {
    if (company.active && !window.confirm(t.companies.confirmDeactivate(company.name))) return
    const done = await action.run(() =>
      company.active
        ? call((c) => c.companies.deactivate({ path: { id: company.id } }))
        : call((c) => c.companies.update({ path: { id: company.id }, payload: { active: true } }))
    )
    if (done) companies.reload()
  }

  return (
    <section>
      <div className="heading">
        <div>
          <ScreenHeading title={t.companies.title} />
          <p className="muted">{t.companies.intro}</p>
        </div>
        {editing === undefined && (
          <button
            type="button"
            className="primary"
            ref={addButton}
            onClick={() => open("new")}
            data-testid="add-company"
          >
            {t.companies.add}
          </button>
        )}
      </div>
      <Notice text={notice} />
      <ErrorBox error={action.error} />
      {editing !== undefined && (
        <CompanyForm
          // A form per company: its fields start from the one being edited, not from the last one opened.
          key={editing === "new" ? "new" : editing.id}
          company={editing === "new" ? undefined : editing}
          onDone={(message) => {
            setEditing(undefined)
            setNotice(message)
            if (message) companies.reload()
          }}
        />
      )}
      <ErrorBox error={companies.error} onRetry={companies.reload} />
      {companies.data === undefined ? (
        companies.loading && <Loading />
      ) : companies.data.length === 0 ? (
        <Empty>{t.companies.empty}</Empty>
      ) : (
        <ul className="cards" data-testid="companies">
          {companies.data.map((company) => (
            <li key={company.id} className={company.active ? "card" : "card inactive"} data-testid="company">
              <div className="card-head">
                <Link to={paths.tenders(company.id)} className="title">
                  {company.name}
                </Link>
                {!company.active && <span className="badge">{t.companies.inactive}</span>}
              </div>
              {company.fiscalCode && (
                <p className="muted small">
                  {t.companies.fiscalCode}: {company.fiscalCode}
                </p>
              )}
              {company.counties.length > 0 && (
                <p className="muted small" data-testid="company-counties">
                  {t.companies.countiesShown(company.counties.join(", "))}
                </p>
              )}
              <p className="clamp">{company.description || t.none}</p>
              <div className="actions">
                <Link to={paths.tenders(company.id)} testId="company-tenders">
                  {t.companies.tenders}
                </Link>
                <Link to={paths.watchlists(company.id)}>{t.companies.watchlists(company.watchlistCount)}</Link>
                <button type="button" className="link" onClick={() => open(company)}>
                  {t.edit}
                </button>
                <button type="button" className="link" onClick={() => toggleActive(company)} disabled={action.pending}>
                  {company.active ? t.companies.deactivate : t.companies.reactivate}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

/** Create (no `company`) or edit a company; `onDone(message)` closes the form. */
export const CompanyForm = (props: {
  readonly company: Company | undefined
  readonly onDone: (message: string | undefined) => void
}) => {
  const { call } = useServices()
  const [draft, setDraft] = useState<CompanyDraft>({
    name: props.company?.name ?? "",
    fiscalCode: props.company?.fiscalCode ?? "",
    description: props.company?.description ?? "",
    counties: props.company?.counties ?? []
  })
  const action = useAction()
  const firstField = useFocusOnMount<HTMLInputElement>()
  // The server's reasons for a refused field, shown beside it.
  const refused = (field: string) => action.error?.reasonsFor(field)
  const set = (field: Exclude<keyof CompanyDraft, "counties">) => (value: string) =>
    setDraft((d) => ({ ...d, [field]: value }))
  // What scoring uses while no county is set: the counties of the awards the company won.
  const inferred = useLoad(
    () =>
      props.company === undefined
        ? Promise.resolve([])
        : call((c) => c.companies.get({ path: { id: props.company!.id } })).then((r) => r.data.inferredCounties),
    [props.company?.id]
  )

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const fiscalCode = draft.fiscalCode.trim() === "" ? null : draft.fiscalCode.trim()
    const company = props.company
    const fields = {
      name: draft.name.trim(),
      description: draft.description,
      fiscalCode,
      counties: [...draft.counties]
    }
    const saved = await action.run(() =>
      company === undefined
        ? call((c) => c.companies.create({ payload: fields }))
        : call((c) => c.companies.update({ path: { id: company.id }, payload: changedFields(fields, company) }))
    )
    if (saved) props.onDone(company === undefined ? t.companies.created : t.companies.saved)
  }

  return (
    <form className="card form" onSubmit={submit} data-testid="company-form">
      <h2>{props.company ? t.companies.editTitle(props.company.name) : t.companies.newTitle}</h2>
      <Field label={t.companies.name} reasons={refused("name")}>
        <input
          name="name"
          ref={firstField}
          required
          maxLength={200}
          value={draft.name}
          onChange={(e) => set("name")(e.target.value)}
        />
      </Field>
      <Field label={t.companies.fiscalCode} hint={t.companies.fiscalCodeHint} reasons={refused("fiscalCode")}>
        <input name="fiscalCode" value={draft.fiscalCode} onChange={(e) => set("fiscalCode")(e.target.value)} />
      </Field>
      <Field label={t.companies.description} hint={t.companies.descriptionHint} reasons={refused("description")}>
        <textarea
          name="description"
          rows={5}
          maxLength={10_000}
          value={draft.description}
          onChange={(e) => set("description")(e.target.value)}
        />
      </Field>
      <div className="field">
        <span className="field-label">{t.companies.counties}</span>
        <CountyPicker
          value={draft.counties}
          onChange={(counties) => setDraft((d) => ({ ...d, counties }))}
          testId="company-counties-picker"
          reasons={refused("counties")}
        />
        <span className="hint">
          {t.companies.countiesHint}
          {draft.counties.length === 0 && (inferred.data?.length ?? 0) > 0 && (
            <>
              {" "}
              <span data-testid="inferred-counties">{t.companies.inferred(inferred.data!.join(", "))}</span>
            </>
          )}
        </span>
      </div>
      <ErrorBox error={action.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={action.pending}>
          {t.save}
        </button>
        <button type="button" onClick={() => props.onDone(undefined)}>
          {t.cancel}
        </button>
      </div>
    </form>
  )
}
