import { type FormEvent, useEffect, useRef, useState } from "react"
import { useServices } from "../AppContext.js"
import { Empty, ErrorBox, Field, Loading, ScoreInput } from "../components/ui.js"
import { bucharestDay, formatDateTime, formatDay } from "../format.js"
import { useAction, useLoad } from "../hooks.js"
import { Link, paths } from "../router.js"
import { t } from "../strings.js"

/** Spec 4.3 recommends polling a job every 5 seconds. */
const POLL_MS = 5_000

/** A fresh Idempotency-Key: 128 random bits in hex (`crypto.randomUUID` needs a secure context; this does not). */
const newIdempotencyKey = () =>
  Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("")

const today = () => bucharestDay(new Date())
const daysAgo = (days: number) => bucharestDay(new Date(Date.now() - days * 86_400_000))

/**
 * PDF reports: request one for a company and period, follow its status, download it when completed.
 * `onCreditsChanged` is told when credits moved: a request holds 10, a report that ends charges or
 * releases them.
 */
export const Reports = ({ onCreditsChanged }: { readonly onCreditsChanged: () => void }) => {
  const { call } = useServices()
  const companies = useLoad(() => call((c) => c.companies.list()).then((r) => r.data.filter((co) => co.active)), [])
  const reports = useLoad(() => call((c) => c.appReports.list()).then((r) => r.data), [])
  const [companyId, setCompanyId] = useState("")
  const [dateFrom, setDateFrom] = useState(daysAgo(30))
  const [dateTo, setDateTo] = useState(today())
  const [minScore, setMinScore] = useState("40")
  const action = useAction()
  // The key of the request not yet answered with a report: a click after a failure (no answer, a
  // server error) with the same fields repeats it with the same key, so a report the server created
  // before the connection broke is not created, nor held for, twice. A report answered starts a new key.
  const pendingKey = useRef<{ readonly fields: string; readonly key: string } | null>(null)

  // The plan has no reports (below Consultant): its refusal is the whole card, no form to fill in vain.
  const planRefused = reports.error?.code === "PLAN_UPGRADE_REQUIRED"
  // Nothing to ask a report for: an empty company list and a disabled button would not say why.
  const noCompany = !planRefused && companies.data !== undefined && companies.data.length === 0
  const busy = (reports.data ?? []).some((r) => r.status === "pending" || r.status === "generating")
  // biome-ignore lint/correctness/useExhaustiveDependencies: each answer, fresh data or a failed poll (error), arms the next poll.
  useEffect(() => {
    if (!busy) return
    const timer = window.setTimeout(reports.reload, POLL_MS)
    return () => window.clearTimeout(timer)
  }, [busy, reports.reload, reports.data, reports.error])
  // The last report in progress ended: its held credits were charged or released.
  const wasBusy = useRef(busy)
  useEffect(() => {
    if (wasBusy.current && !busy) onCreditsChanged()
    wasBusy.current = busy
  }, [busy, onCreditsChanged])

  const request = async (event: FormEvent) => {
    event.preventDefault()
    const chosen = companyId || companies.data?.[0]?.id
    // Empty would be sent as 0: a report of every tender (the field is required; this is its guard).
    if (chosen === undefined || minScore.trim() === "") return
    const payload = { date_from: dateFrom, date_to: dateTo, min_score: Number(minScore) }
    const fields = JSON.stringify([chosen, payload])
    if (pendingKey.current?.fields !== fields) pendingKey.current = { fields, key: newIdempotencyKey() }
    const key = pendingKey.current.key
    const done = await action.run(() =>
      call((c) => c.appReports.create({ path: { companyId: chosen }, headers: { "idempotency-key": key }, payload }))
    )
    if (done) {
      pendingKey.current = null
      reports.reload()
      onCreditsChanged()
    }
  }
  const download = async (jobId: string) => {
    const link = await action.run(() => call((c) => c.appReports.downloadUrl({ path: { jobId } })))
    if (link) window.location.assign(link.data.downloadUrl)
  }

  return (
    <section className="card" data-testid="reports">
      <h2>{t.reports.title}</h2>
      <p className="muted small">{t.reports.intro}</p>
      {planRefused ? null : noCompany ? (
        <Empty>
          {t.reports.noCompany} <Link to={paths.companies()}>{t.reports.toCompanies}</Link>
        </Empty>
      ) : (
        <form className="inline-form" onSubmit={request}>
          <Field label={t.reports.company}>
            <select value={companyId} onChange={(e) => setCompanyId(e.target.value)}>
              {(companies.data ?? []).map((co) => (
                <option key={co.id} value={co.id}>
                  {co.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label={t.reports.dateFrom} reasons={action.error?.reasonsFor("date_from")}>
            <input type="date" required value={dateFrom} onChange={(e) => setDateFrom(e.target.value)} />
          </Field>
          <Field label={t.reports.dateTo} reasons={action.error?.reasonsFor("date_to")}>
            <input type="date" required value={dateTo} onChange={(e) => setDateTo(e.target.value)} />
          </Field>
          <Field label={t.tenders.minScore} reasons={action.error?.reasonsFor("min_score")}>
            <ScoreInput value={minScore} onValue={setMinScore} />
          </Field>
          <button type="submit" className="primary" disabled={action.pending || !companies.data?.length}>
            {t.reports.request}
          </button>
        </form>
      )}
      <ErrorBox error={action.error} />
      <ErrorBox error={companies.error} onRetry={companies.reload} />
      <ErrorBox error={reports.error} onRetry={reports.reload} />
      {reports.data === undefined ? (
        reports.loading && <Loading />
      ) : reports.data.length === 0 ? (
        !noCompany && <Empty>{t.reports.empty}</Empty>
      ) : (
        <ul className="rows" data-testid="report-list">
          {reports.data.map((report) => (
            <li key={report.id} data-testid="report" data-status={report.status}>
              <span>{report.companyName}</span>
              <span className="muted small">
                {formatDay(report.dateFrom)} – {formatDay(report.dateTo)} · {formatDateTime(report.createdAt)}
              </span>
              <span className="badge">{t.reports.status[report.status] ?? report.status}</span>
              {report.status === "completed" && (
                <button type="button" className="link" onClick={() => download(report.id)}>
                  {t.reports.download}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
