import { useCallback, useEffect, useRef, useState } from "react"
import { useServices } from "../AppContext.js"
import type { AppError } from "../api/errors.js"
import { toAppError } from "../api/errors.js"
import { Empty, ErrorBox, Loading, ScoreBadge, VerdictBadge } from "../components/ui.js"
import { daysLeft, formatDate, formatMoney } from "../format.js"
import { useLoad } from "../hooks.js"
import { Link, paths } from "../router.js"
import { t } from "../strings.js"

type Status = "all" | "open" | "closed"

interface TenderItem {
  readonly id: string
  readonly title: string
  readonly score: number
  readonly verdict: "GO" | "RESEARCH" | "SKIP"
  readonly authority: string
  readonly authorityCounty: string | null
  readonly deadline: Date | null
  readonly estimatedValueRon: number | null
  readonly estimatedValueEur: number | null
}

interface ListState {
  readonly items: ReadonlyArray<TenderItem>
  readonly total: number | undefined
  readonly cursor: string | null
  readonly hasMore: boolean
  readonly loading: boolean
  readonly error: AppError | undefined
}

const PAGE_SIZE = 20
const initial: ListState = {
  items: [],
  total: undefined,
  cursor: null,
  hasMore: true,
  loading: false,
  error: undefined
}

export const TendersScreen = ({ companyId }: { readonly companyId: string }) => {
  const { call } = useServices()
  const company = useLoad(
    () => call((c) => c.companies.get({ path: { id: companyId } })).then((r) => r.data),
    [companyId]
  )
  const [minScore, setMinScore] = useState(0)
  const [status, setStatus] = useState<Status>("open")
  const [list, setList] = useState<ListState>(initial)
  // Each filter change starts a new generation; answers of an older one are dropped.
  const generation = useRef(0)
  const inFlight = useRef(false)

  const loadPage = useCallback(
    (reset: boolean) => {
      if (inFlight.current && !reset) return
      const current = reset ? ++generation.current : generation.current
      inFlight.current = true
      setList((state) => (reset ? { ...initial, loading: true } : { ...state, loading: true, error: undefined }))
      const cursor = reset ? null : list.cursor
      call((c) =>
        c.appTenders.list({
          path: { companyId },
          urlParams: {
            minScore,
            limit: PAGE_SIZE,
            ...(status === "all" ? {} : { status }),
            ...(cursor === null ? {} : { cursor })
          }
        })
      ).then(
        (page) => {
          if (current !== generation.current) return
          inFlight.current = false
          setList((state) => ({
            items: reset ? page.data : [...state.items, ...page.data],
            total: page.meta.total,
            cursor: page.meta.nextCursor,
            hasMore: page.meta.hasMore,
            loading: false,
            error: undefined
          }))
        },
        (error) => {
          if (current !== generation.current) return
          inFlight.current = false
          setList((state) => ({ ...state, loading: false, error: toAppError(error) }))
        }
      )
    },
    [call, companyId, minScore, status, list.cursor]
  )

  // biome-ignore lint/correctness/useExhaustiveDependencies: a filter change restarts the list.
  useEffect(() => loadPage(true), [companyId, minScore, status])

  // More pages on scroll: a sentinel below the list asks for the next page when it comes into view.
  const sentinel = useRef<HTMLDivElement>(null)
  const loadMore = useRef(() => {})
  loadMore.current = () => {
    if (list.hasMore && !list.loading && list.error === undefined && list.items.length > 0) loadPage(false)
  }
  useEffect(() => {
    const element = sentinel.current
    if (element === null) return
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) loadMore.current()
    })
    observer.observe(element)
    return () => observer.disconnect()
  }, [])

  const now = new Date()
  const filtered = minScore > 0 || status !== "open"
  return (
    <section>
      <div className="heading">
        <h1>{company.data ? t.tenders.title(company.data.name) : t.loading}</h1>
        <Link to={paths.watchlists(companyId)}>{t.companies.watchlistsLink}</Link>
      </div>
      <ErrorBox error={company.error} onRetry={company.reload} />
      <div className="filters" data-testid="tender-filters">
        <label className="field inline">
          <span className="field-label">{t.tenders.minScore}</span>
          <select
            name="minScore"
            value={minScore}
            onChange={(e) => setMinScore(Number(e.target.value))}
            data-testid="min-score"
          >
            {[0, 20, 40, 50, 60, 70, 80, 90].map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label className="field inline">
          <span className="field-label">{t.tenders.status}</span>
          <select
            name="status"
            value={status}
            onChange={(e) => setStatus(e.target.value as Status)}
            data-testid="status"
          >
            <option value="open">{t.tenders.statusOpen}</option>
            <option value="closed">{t.tenders.statusClosed}</option>
            <option value="all">{t.tenders.statusAll}</option>
          </select>
        </label>
        {list.total !== undefined && (
          <span className="muted" data-testid="tender-total">
            {t.tenders.total(list.total)}
          </span>
        )}
      </div>
      {list.items.length === 0 && !list.loading && list.error === undefined && list.total !== undefined && (
        <Empty>
          {filtered ? (
            t.tenders.emptyFiltered
          ) : (
            <>
              <p>{t.tenders.empty}</p>
              <p className="actions">
                <Link to={paths.companies()}>{t.tenders.addDescription}</Link>
                <Link to={paths.watchlists(companyId)}>{t.tenders.addWatchlist}</Link>
              </p>
            </>
          )}
        </Empty>
      )}
      <ul className="tenders" data-testid="tenders">
        {list.items.map((tender) => (
          <li key={tender.id} className="tender" data-testid="tender">
            <div className="tender-score">
              <ScoreBadge score={tender.score} verdict={tender.verdict} />
              <VerdictBadge verdict={tender.verdict} />
            </div>
            <div className="tender-body">
              <Link to={paths.tender(companyId, tender.id)} className="title" testId="tender-link">
                {tender.title}
              </Link>
              <p className="muted small">
                {tender.authority}
                {tender.authorityCounty && ` · ${tender.authorityCounty}`}
              </p>
              <p className="tender-facts small">
                <span>
                  {tender.deadline ? (
                    <>
                      {t.tenders.deadline}: {formatDate(tender.deadline)}{" "}
                      <span className="days">({t.tenders.daysLeft(daysLeft(tender.deadline, now))})</span>
                    </>
                  ) : (
                    t.tenders.noDeadline
                  )}
                </span>
                <span>
                  {tender.estimatedValueRon === null
                    ? t.tenders.noValue
                    : `${formatMoney(tender.estimatedValueRon, "RON")} · ${formatMoney(tender.estimatedValueEur ?? 0, "EUR")}`}
                </span>
              </p>
            </div>
          </li>
        ))}
      </ul>
      <ErrorBox error={list.error} onRetry={() => loadPage(list.items.length === 0)} />
      {list.loading && <Loading />}
      <div ref={sentinel} className="sentinel" />
      {list.hasMore && !list.loading && list.items.length > 0 && list.error === undefined && (
        <button type="button" onClick={() => loadPage(false)} data-testid="load-more">
          {t.tenders.loadMore}
        </button>
      )}
      {!list.hasMore && list.items.length > 0 && <p className="muted small">{t.tenders.end}</p>}
    </section>
  )
}
