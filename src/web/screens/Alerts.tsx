import { useEffect, useRef, useState } from "react"
import { useServices } from "../AppContext.js"
import { Empty, ErrorBox, Loading, Notice, ScoreBadge, ScreenHeading, VerdictBadge } from "../components/ui.js"
import { bucharestMidnight, formatDateTime } from "../format.js"
import { useAction, useLoad, useRemovalFocus } from "../hooks.js"
import { ISO_DAY, isUuid, Link, navigate, paths, queryOf, useLocation } from "../router.js"
import { t } from "../strings.js"
import { useUnread } from "../unread.js"

type ReadFilter = "all" | "true" | "false"
type VerdictFilter = "" | "GO" | "RESEARCH" | "SKIP"

const PAGE_SIZE = 20

/** The filters and page; they live in the query string, so Back from an alert's tender (or a reload) keeps them. */
interface Filters {
  readonly unread: ReadFilter
  readonly watchlistId: string
  readonly verdict: VerdictFilter
  readonly dateFrom: string
  readonly page: number
}

const DEFAULT_FILTERS: Filters = { unread: "all", watchlistId: "", verdict: "", dateFrom: "", page: 1 }

/** Filters from the query string; a value the screen does not offer falls back to its default. */
const filtersFromUrl = (search: string): Filters => {
  const params = new URLSearchParams(search)
  const get = (name: keyof Filters) => params.get(name) ?? ""
  const unread = get("unread")
  const verdict = get("verdict")
  const page = Number(get("page"))
  return {
    unread: unread === "true" || unread === "false" ? unread : "all",
    watchlistId: isUuid(get("watchlistId")) ? get("watchlistId") : "",
    verdict: verdict === "GO" || verdict === "RESEARCH" || verdict === "SKIP" ? verdict : "",
    dateFrom: ISO_DAY.test(get("dateFrom")) ? get("dateFrom") : "",
    page: Number.isInteger(page) && page > 1 ? page : 1
  }
}

/** The query string of the filters that differ from the defaults. */
const filtersToUrl = (filters: Filters): string => queryOf(filters, DEFAULT_FILTERS)

/** Spec 4.8: the filters (read state, watchlist, verdict, from date), pages, read/unread, mark all read. */
export const AlertsScreen = () => {
  const { call } = useServices()
  const unread = useUnread()
  // The address is the one source of the filters: Back, a reload or the nav link show what it says.
  const location = useLocation()
  const { unread: readFilter, watchlistId, verdict, dateFrom, page } = filtersFromUrl(location.split("?")[1] ?? "")
  const go = (change: Partial<Filters>) =>
    navigate(paths.alerts() + filtersToUrl({ unread: readFilter, watchlistId, verdict, dateFrom, page, ...change }), {
      replace: true
    })
  const setPage = (to: number) => go({ page: to })
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const action = useAction()
  const { clearError } = action
  // "N alerts marked read", or an action's failure, told of the list as it was filtered: not of the next one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when a filter changes, whichever way (a select, the address).
  useEffect(() => {
    setNotice(undefined)
    clearError()
  }, [readFilter, watchlistId, verdict, dateFrom, clearError])
  const watchlists = useLoad(() => call((c) => c.watchlists.list()).then((r) => r.data), [])
  // Deleted watchlists are listed nowhere, but their alerts are kept and the list filters by them:
  // the watchlists the alerts shown name (id and name) that are not active are offered as deleted.
  const [named, setNamed] = useState<ReadonlyMap<string, string>>(new Map())
  const alerts = useLoad(
    () =>
      call((c) =>
        c.alerts.list({
          urlParams: {
            page,
            limit: PAGE_SIZE,
            ...(readFilter === "all" ? {} : { unread: readFilter === "true" }),
            ...(watchlistId === "" ? {} : { watchlistId }),
            ...(verdict === "" ? {} : { verdict }),
            // The day as the list dates alerts: from midnight in Bucharest, whatever the browser's zone.
            ...(dateFrom === "" ? {} : { dateFrom: bucharestMidnight(dateFrom) })
          }
        })
      ),
    [page, readFilter, watchlistId, verdict, dateFrom]
  )
  // The badge's poll found new alerts (or alerts read elsewhere): the same page, same filters, again.
  const changesShown = useRef(unread.changes)
  // biome-ignore lint/correctness/useExhaustiveDependencies: reload is stable; only a new change matters.
  useEffect(() => {
    if (unread.changes === changesShown.current) return
    changesShown.current = unread.changes
    alerts.reload()
  }, [unread.changes])
  useEffect(() => {
    const page = alerts.data?.data ?? []
    if (page.every((alert) => named.has(alert.watchlistId))) return
    setNamed((known) => new Map([...known, ...page.map((alert) => [alert.watchlistId, alert.watchlistName] as const)]))
  }, [alerts.data, named])
  const active = new Set((watchlists.data ?? []).map((w) => w.id))
  const deleted = [...named].filter(([id]) => watchlists.data !== undefined && !active.has(id))
  // The address's watchlist when no alert shown names it yet: a deleted one with none on this page (all
  // read, under the unread filter), still shown as the filter applied rather than as "every list".
  const unnamed =
    watchlistId !== "" && watchlists.data !== undefined && !active.has(watchlistId) && !named.has(watchlistId)
  const filtered = readFilter !== "all" || watchlistId !== "" || verdict !== "" || dateFrom !== ""
  // A filter change starts again on the first page.
  const filter = (change: Partial<Filters>) => go({ ...change, page: 1 })

  // The focus of a read/unread button: kept on it (the button stays enabled meanwhile: a disabled one
  // drops the focus), or, when the alert leaves the list (marked read under "necitite"), given to the
  // same button of the alert that takes its place.
  const markAllButton = useRef<HTMLButtonElement>(null)
  const removalFocus = useRemovalFocus(markAllButton)
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once the list has reloaded.
  useEffect(() => removalFocus.settled(), [alerts.data])
  const setRead = async (id: string, read: boolean) => {
    if (action.pending) return
    removalFocus.start()
    const done = await action.run(() => call((c) => c.alerts.setRead({ path: { id }, payload: { read } })))
    if (done) {
      alerts.reload()
      unread.refresh()
    } else removalFocus.failed()
  }
  const markAll = async () => {
    // The route marks every alert of the account (spec 4.8, no body): under a filter the list shows
    // fewer than it will mark, so the user is asked first.
    if (filtered && !window.confirm(t.alerts.confirmMarkAllFiltered)) return
    const done = await action.run(() => call((c) => c.alerts.markAllRead()))
    if (done) {
      setNotice(t.alerts.markedAll(done.data.updated))
      alerts.reload()
      unread.refresh()
    }
  }

  const meta = alerts.data?.meta
  // Alerts read meanwhile (here under an "unread" filter, or in another tab) can leave this page past
  // the last one: go to the last page there is, where the alerts still to read are.
  const lastPage = Math.max(1, meta?.totalPages ?? 1)
  // biome-ignore lint/correctness/useExhaustiveDependencies: setPage only writes the address the others are read from.
  useEffect(() => {
    if (meta !== undefined && page > lastPage) setPage(lastPage)
  }, [meta, page, lastPage])
  return (
    <section>
      <div className="heading">
        <ScreenHeading title={t.alerts.title} />
        <button
          type="button"
          ref={markAllButton}
          onClick={markAll}
          disabled={action.pending}
          data-testid="mark-all-read"
        >
          {t.alerts.markAllRead}
        </button>
      </div>
      <div className="filters">
        <label className="field inline">
          <span className="field-label">{t.alerts.filterRead}</span>
          <select value={readFilter} onChange={(e) => filter({ unread: e.target.value as ReadFilter })}>
            <option value="all">{t.alerts.all}</option>
            <option value="true">{t.alerts.unreadOnly}</option>
            <option value="false">{t.alerts.readOnly}</option>
          </select>
        </label>
        <label className="field inline">
          <span className="field-label">{t.alerts.watchlist}</span>
          <select value={watchlistId} onChange={(e) => filter({ watchlistId: e.target.value })}>
            <option value="">{t.alerts.anyWatchlist}</option>
            {(watchlists.data ?? []).map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
            {deleted.map(([id, name]) => (
              <option key={id} value={id} data-deleted="true">
                {t.alerts.deletedWatchlist(name)}
              </option>
            ))}
            {unnamed && <option value={watchlistId}>{t.alerts.unnamedWatchlist}</option>}
          </select>
        </label>
        <label className="field inline">
          <span className="field-label">{t.alerts.verdict}</span>
          <select value={verdict} onChange={(e) => filter({ verdict: e.target.value as VerdictFilter })}>
            <option value="">{t.alerts.anyVerdict}</option>
            <option value="GO">{t.verdict.GO}</option>
            <option value="RESEARCH">{t.verdict.RESEARCH}</option>
            <option value="SKIP">{t.verdict.SKIP}</option>
          </select>
        </label>
        <label className="field inline">
          <span className="field-label">{t.alerts.dateFrom}</span>
          <input type="date" value={dateFrom} onChange={(e) => filter({ dateFrom: e.target.value })} />
        </label>
      </div>
      <Notice text={notice} />
      <ErrorBox error={action.error} />
      <ErrorBox error={alerts.error} onRetry={alerts.reload} />
      {alerts.data === undefined ? (
        alerts.loading && <Loading />
      ) : alerts.data.data.length === 0 ? (
        <Empty>{filtered ? t.alerts.emptyFiltered : t.alerts.empty}</Empty>
      ) : (
        <ul className="alerts" data-testid="alerts">
          {alerts.data.data.map((alert) => (
            <li
              key={alert.id}
              className={alert.read ? "alert" : "alert unread"}
              data-testid="alert"
              data-alert-id={alert.id}
              data-read={alert.read}
            >
              <ScoreBadge score={alert.score} verdict={alert.verdict} />
              <div className="alert-body">
                <Link to={paths.tender(alert.companyId, alert.tenderId, location)} className="title">
                  {alert.tenderTitle}
                </Link>
                <p className="muted small">
                  <VerdictBadge verdict={alert.verdict} />{" "}
                  <strong className="alert-company" data-testid="alert-company">
                    {alert.companyName}
                  </strong>{" "}
                  ·{" "}
                  {watchlists.data === undefined || active.has(alert.watchlistId)
                    ? alert.watchlistName
                    : t.alerts.deletedWatchlist(alert.watchlistName)}{" "}
                  · {formatDateTime(alert.createdAt)}
                  {!alert.read && <strong> · {t.alerts.unread}</strong>}
                </p>
              </div>
              <button
                type="button"
                className="link"
                onClick={() => setRead(alert.id, !alert.read)}
                aria-disabled={action.pending}
                data-testid={alert.read ? "mark-unread" : "mark-read"}
              >
                {alert.read ? t.alerts.markUnread : t.alerts.markRead}
              </button>
            </li>
          ))}
        </ul>
      )}
      {meta && (meta.totalPages > 1 || page > 1) && (
        <div className="pager">
          <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t.alerts.previous}
          </button>
          <span>{t.alerts.page(meta.page, meta.totalPages)}</span>
          <button type="button" disabled={page >= meta.totalPages} onClick={() => setPage(page + 1)}>
            {t.alerts.next}
          </button>
        </div>
      )}
    </section>
  )
}
