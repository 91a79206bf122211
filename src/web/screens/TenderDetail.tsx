import { useServices } from "../AppContext.js"
import { ErrorBox, Loading, ScoreBadge, ScreenHeading, useDocumentTitle, VerdictBadge } from "../components/ui.js"
import { daysLeft, formatDate, formatDateTime, formatTenderValue, percent } from "../format.js"
import { useLoad } from "../hooks.js"
import { backPath, Link, matchRoute, paths, useLocation } from "../router.js"
import { t } from "../strings.js"
import { TenderFeedback } from "./TenderFeedback.js"

const FACTORS = ["semantic", "keyword", "cpv", "valueFit", "historical"] as const

interface Factor {
  readonly score: number
  readonly weight: number
  readonly contribution: number
  readonly reason?: string
}

/** One bar per factor: its length is the factor's score; the label says the points it brought. */
export const FactorChart = (props: {
  readonly factors: Record<(typeof FACTORS)[number], Factor> & { readonly cpv: { readonly cpvType: string } }
}) => (
  <ol className="factors" data-testid="factors">
    {FACTORS.map((name) => {
      const factor = props.factors[name]
      const cpvType = name === "cpv" ? props.factors.cpv.cpvType : undefined
      return (
        <li key={name} className="factor" data-testid="factor" data-factor={name}>
          <div className="factor-head">
            <span className="factor-name">{t.detail.factor[name]}</span>
            <span className="muted small">
              <strong>{t.detail.factorScore(percent(factor.score))}</strong> · {t.detail.points(factor.contribution)} ·{" "}
              {t.detail.weight(percent(factor.weight))}
            </span>
          </div>
          <div
            className="bar"
            role="img"
            aria-label={`${t.detail.factor[name]}: ${t.detail.factorScore(percent(factor.score))}`}
          >
            <span className="bar-fill" style={{ width: `${percent(factor.score)}%` }} />
          </div>
          {(factor.reason || cpvType) && (
            <p className="factor-reason small" data-testid="factor-reason">
              {factor.reason ?? t.detail.cpvType[cpvType as "primary" | "additional" | "none"]}
            </p>
          )}
        </li>
      )
    })}
  </ol>
)

/** The tab's title while the tender loads (its heading comes with it, and takes the focus then). */
const LoadingTitle = () => {
  useDocumentTitle(t.loading)
  return null
}

export const TenderDetailScreen = (props: { readonly companyId: string; readonly tenderId: string }) => {
  const { call } = useServices()
  const tender = useLoad(
    () =>
      call((c) => c.appTenders.get({ path: { companyId: props.companyId, tenderId: props.tenderId } })).then(
        (r) => r.data
      ),
    [props.companyId, props.tenderId]
  )
  // Back where it was opened from, as it was (`from`, an app path: filters, sort, page): the Alerts
  // screen or this company's tender list; else the company's list unfiltered.
  const from = backPath(useLocation().split("?")[1] ?? "")
  const fromRoute = from === undefined ? undefined : matchRoute(from.split("?")[0]!)
  // Followed back to the list it was opened from, the list shows itself as it was left (pages, scroll).
  const fromList = from !== undefined && fromRoute?.name === "tenders" && fromRoute.companyId === props.companyId
  const back =
    from !== undefined && fromRoute?.name === "alerts" ? (
      <Link to={from} testId="back" back>
        ← {t.alerts.back}
      </Link>
    ) : (
      <Link to={fromList ? from : paths.tenders(props.companyId)} testId="back" back={fromList}>
        ← {t.tenders.back}
      </Link>
    )
  if (tender.data === undefined)
    return (
      <section>
        {back}
        {tender.error === undefined ? (
          <LoadingTitle />
        ) : (
          <>
            <ScreenHeading title={t.detail.titleUnloaded} />
            <ErrorBox error={tender.error} onRetry={tender.reload} />
          </>
        )}
        {tender.loading && <Loading />}
      </section>
    )
  const d = tender.data
  return (
    <section className="detail" data-testid="tender-detail">
      {back}
      <div className="detail-head">
        <ScoreBadge score={d.score} verdict={d.verdict} />
        <div>
          <ScreenHeading title={d.title} />
          <VerdictBadge verdict={d.verdict} />
        </div>
      </div>
      <dl className="facts">
        <dt>{t.tenders.authority}</dt>
        <dd>{d.authority}</dd>
        <dt>{t.tenders.county}</dt>
        <dd>{d.authorityCounty ?? t.none}</dd>
        <dt>{t.tenders.deadline}</dt>
        <dd>
          {d.deadline
            ? `${formatDateTime(d.deadline)} (${t.tenders.daysLeft(daysLeft(d.deadline, new Date()))})`
            : t.tenders.noDeadline}
        </dd>
        <dt>{t.tenders.value}</dt>
        <dd>
          {d.estimatedValueRon === null
            ? t.tenders.noValue
            : formatTenderValue(d.estimatedValueRon, d.estimatedValueEur)}
        </dd>
        <dt>{t.detail.published}</dt>
        <dd>{formatDate(d.publishDate)}</dd>
      </dl>
      <p>
        <a href={d.sourceUrl} target="_blank" rel="noopener noreferrer" data-testid="source-link">
          {t.detail.original} ↗
        </a>
      </p>
      <TenderFeedback companyId={props.companyId} tenderId={props.tenderId} />
      <h2>{t.detail.breakdown}</h2>
      <p className="muted small">{t.detail.confidence(percent(d.breakdown.overallConfidence))}</p>
      <FactorChart factors={d.breakdown.factors} />
      <p className="muted small">{t.detail.model(d.breakdown.modelVersion, formatDateTime(d.breakdown.scoredAt))}</p>
      <h2>{t.detail.cpvCodes}</h2>
      <ul className="plain">
        {d.cpv.map((entry) => (
          <li key={entry.code}>
            <code>{entry.code}</code> {entry.labelRo}
          </li>
        ))}
      </ul>
      {d.description && (
        <>
          <h2>{t.detail.description}</h2>
          <p className="prose">{d.description}</p>
        </>
      )}
    </section>
  )
}
