import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react"
import { ROMANIAN_COUNTIES } from "../../domain/tenders/Counties.js"
import { normalizeRomanianText } from "../../domain/tenders/RomanianText.js"
import { useServices } from "../AppContext.js"
import type { AppError } from "../api/errors.js"
import { toAppError } from "../api/errors.js"
import {
  Empty,
  ErrorBox,
  Field,
  Loading,
  loadedTitle,
  ScoreBadge,
  ScreenHeading,
  VerdictBadge
} from "../components/ui.js"
import { daysLeft, formatDate, formatTenderValue } from "../format.js"
import { useLoad } from "../hooks.js"
import { recallList, rememberList } from "../listMemory.js"
import { arrivedBack, ISO_DAY, Link, paths, queryOf } from "../router.js"
import { t } from "../strings.js"
import { CpvPicker } from "./CpvPicker.js"

type Status = "all" | "open" | "closed"
type Sort = "score" | "deadline" | "value"

/** The list's filters; each also lives in the page's query string, so a reload or a shared link keeps them. */
interface Filters {
  readonly minScore: number
  readonly status: Status
  readonly q: string
  readonly county: string
  readonly cpv: string
  readonly deadlineFrom: string
  readonly deadlineTo: string
  readonly sort: Sort
}

const DEFAULT_FILTERS: Filters = {
  minScore: 0,
  status: "open",
  q: "",
  county: "",
  cpv: "",
  deadlineFrom: "",
  deadlineTo: "",
  sort: "score"
}

const MIN_SCORES = [0, 20, 40, 50, 60, 70, 80, 90]
const SEARCH_DELAY_MS = 300

/** Filters from the query string; a value the list does not offer falls back to its default. */
const filtersFromUrl = (search: string): Filters => {
  const params = new URLSearchParams(search)
  const get = (name: keyof Filters) => params.get(name) ?? ""
  const minScore = Number(get("minScore"))
  const status = get("status")
  const sort = get("sort")
  return {
    minScore: MIN_SCORES.includes(minScore) ? minScore : DEFAULT_FILTERS.minScore,
    status: status === "all" || status === "closed" ? status : DEFAULT_FILTERS.status,
    q: get("q"),
    county: ROMANIAN_COUNTIES.includes(get("county")) ? get("county") : "",
    cpv: /^\d{8}-\d$/.test(get("cpv")) ? get("cpv") : "",
    deadlineFrom: ISO_DAY.test(get("deadlineFrom")) ? get("deadlineFrom") : "",
    deadlineTo: ISO_DAY.test(get("deadlineTo")) ? get("deadlineTo") : "",
    sort: sort === "deadline" || sort === "value" ? sort : DEFAULT_FILTERS.sort
  }
}

/** The query string of the filters that differ from the defaults. */
const filtersToUrl = (filters: Filters): string => queryOf(filters, DEFAULT_FILTERS)

/** The API's query of the filters (empty ones left out; a window with its ends swapped is put right). */
const toUrlParams = (filters: Filters) => {
  const [from, to] =
    filters.deadlineFrom !== "" && filters.deadlineTo !== "" && filters.deadlineTo < filters.deadlineFrom
      ? [filters.deadlineTo, filters.deadlineFrom]
      : [filters.deadlineFrom, filters.deadlineTo]
  return {
    minScore: filters.minScore,
    status: filters.status,
    sort: filters.sort,
    ...(filters.q.trim() === "" ? {} : { q: filters.q.trim() }),
    ...(filters.county === "" ? {} : { county: filters.county }),
    ...(filters.cpv === "" ? {} : { cpv: filters.cpv }),
    ...(from === "" ? {} : { deadlineFrom: from }),
    ...(to === "" ? {} : { deadlineTo: to })
  }
}

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
  const { call, session } = useServices()
  const company = useLoad(
    () => call((c) => c.companies.get({ path: { id: companyId } })).then((r) => r.data),
    [companyId]
  )
  const [filters, setFilters] = useState<Filters>(() => filtersFromUrl(window.location.search))
  const set = (change: Partial<Filters>) => setFilters((current) => ({ ...current, ...change }))
  // The search box answers as one types; the list follows once typing pauses.
  const [search, setSearch] = useState(filters.q)
  useEffect(() => {
    const timer = window.setTimeout(
      () => setFilters((current) => (current.q === search ? current : { ...current, q: search })),
      SEARCH_DELAY_MS
    )
    return () => window.clearTimeout(timer)
  }, [search])
  useEffect(() => {
    window.history.replaceState(null, "", `${window.location.pathname}${filtersToUrl(filters)}`)
  }, [filters])
  const cpvLabel = useLoad(
    () =>
      filters.cpv === ""
        ? Promise.resolve(undefined)
        : call((c) => c.cpv.search({ urlParams: { q: filters.cpv.slice(0, 8), limit: 1 } })).then(
            // The CPV table's labels carry cedilla letters (ş ţ); Romanian writes comma-below ones.
            (r) => {
              const label = r.data.find((entry) => entry.code === filters.cpv)?.labelRo
              return label === undefined ? undefined : normalizeRomanianText(label)
            }
          ),
    [filters.cpv]
  )
  // A tender opened from here returns to this list as it is (`from` in its address: a reload of the
  // detail, or a link to it shared, keeps the way back).
  const listPath = paths.tenders(companyId) + filtersToUrl(filters)
  // Coming back to this list (Back from a tender) shows it as it was left, pages and scroll, for a few
  // minutes; its next page continues from the cursor it had (the cursor's snapshot keeps the order).
  const memoryKey = `${session.account ?? ""} ${listPath}`
  const [remembered] = useState(() => (arrivedBack() ? recallList<ListState>(memoryKey) : undefined))
  const [list, setList] = useState<ListState>(remembered?.state ?? initial)
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
            ...toUrlParams(filters),
            limit: PAGE_SIZE,
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
    [call, companyId, filters, list.cursor]
  )

  const showsRemembered = useRef(remembered !== undefined)
  // biome-ignore lint/correctness/useExhaustiveDependencies: a filter change restarts the list.
  useEffect(() => {
    if (showsRemembered.current) showsRemembered.current = false
    else loadPage(true)
  }, [companyId, filters])
  // Before the first paint, so the list never shows at its top first.
  useLayoutEffect(() => {
    if (remembered !== undefined) window.scrollTo(0, remembered.scrollY)
  }, [remembered])
  // The tender opened from here: its link takes the focus back when the list is shown again (after the
  // heading took it), so the next Tab goes on from there, not from the page's top.
  const opened = useRef<string | undefined>(undefined)
  const openedLink = useRef<HTMLAnchorElement>(null)
  useEffect(() => {
    if (remembered?.openedId !== undefined) openedLink.current?.focus({ preventScroll: true })
  }, [remembered])
  // The list as it is left: followed as it scrolls (a link followed scrolls the page to the top
  // before this screen goes), kept as it unmounts.
  const leaving = useRef({ key: memoryKey, list })
  leaving.current = { key: memoryKey, list }
  useEffect(() => {
    let scrollY = window.scrollY
    const follow = () => {
      scrollY = window.scrollY
    }
    window.addEventListener("scroll", follow, { passive: true })
    return () => {
      window.removeEventListener("scroll", follow)
      const { key, list } = leaving.current
      if (list.items.length > 0) {
        rememberList(key, { state: { ...list, loading: false, error: undefined }, scrollY, openedId: opened.current })
      }
    }
  }, [])

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
  const filtered = filtersToUrl(filters) !== ""
  return (
    <section>
      <div className="heading">
        <ScreenHeading
          title={loadedTitle(company, (loaded) => t.tenders.title(loaded.name), t.tenders.titleWithoutCompany)}
        />
        <Link to={paths.watchlists(companyId)}>{t.companies.watchlistsLink}</Link>
      </div>
      <ErrorBox error={company.error} onRetry={company.reload} />
      <div className="filters" data-testid="tender-filters">
        <label className="field inline">
          <span className="field-label">{t.tenders.minScore}</span>
          <select
            name="minScore"
            value={filters.minScore}
            onChange={(e) => set({ minScore: Number(e.target.value) })}
            data-testid="min-score"
          >
            {MIN_SCORES.map((value) => (
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
            value={filters.status}
            onChange={(e) => set({ status: e.target.value as Status })}
            data-testid="status"
          >
            <option value="open">{t.tenders.statusOpen}</option>
            <option value="closed">{t.tenders.statusClosed}</option>
            <option value="all">{t.tenders.statusAll}</option>
          </select>
        </label>
        <label className="field inline">
          <span className="field-label">{t.tenders.sort}</span>
          <select
            name="sort"
            value={filters.sort}
            onChange={(e) => set({ sort: e.target.value as Sort })}
            data-testid="sort"
          >
            <option value="score">{t.tenders.sortScore}</option>
            <option value="deadline">{t.tenders.sortDeadline}</option>
            <option value="value">{t.tenders.sortValue}</option>
          </select>
        </label>
        <Field label={t.tenders.search} inline>
          <input
            type="search"
            name="q"
            value={search}
            placeholder={t.tenders.searchPlaceholder}
            maxLength={200}
            onChange={(e) => setSearch(e.target.value)}
            data-testid="search"
          />
        </Field>
        <label className="field inline">
          <span className="field-label">{t.tenders.county}</span>
          <select
            name="county"
            value={filters.county}
            onChange={(e) => set({ county: e.target.value })}
            data-testid="county"
          >
            <option value="">{t.tenders.countyAll}</option>
            {ROMANIAN_COUNTIES.map((county) => (
              <option key={county} value={county}>
                {county}
              </option>
            ))}
          </select>
        </label>
        <label className="field inline">
          <span className="field-label">{t.tenders.deadlineFrom}</span>
          <input
            type="date"
            name="deadlineFrom"
            value={filters.deadlineFrom}
            onChange={(e) => set({ deadlineFrom: e.target.value })}
            data-testid="deadline-from"
          />
        </label>
        <label className="field inline">
          <span className="field-label">{t.tenders.deadlineTo}</span>
          <input
            type="date"
            name="deadlineTo"
            value={filters.deadlineTo}
            onChange={(e) => set({ deadlineTo: e.target.value })}
            data-testid="deadline-to"
          />
        </label>
        <div className="field inline cpv-filter" data-testid="cpv-filter">
          <span className="field-label">{t.tenders.cpv}</span>
          <CpvPicker
            value={filters.cpv === "" ? [] : [filters.cpv]}
            onChange={(codes) => set({ cpv: codes[codes.length - 1] ?? "" })}
          />
          {filters.cpv !== "" && cpvLabel.data !== undefined && (
            <span className="muted small" data-testid="cpv-label">
              {cpvLabel.data}
            </span>
          )}
        </div>
        {filtered && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setSearch("")
              setFilters(DEFAULT_FILTERS)
            }}
            data-testid="clear-filters"
          >
            {t.tenders.clearFilters}
          </button>
        )}
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
              <Link
                to={paths.tender(companyId, tender.id, listPath)}
                className="title"
                testId="tender-link"
                onFollow={() => {
                  opened.current = tender.id
                }}
                anchorRef={tender.id === remembered?.openedId ? openedLink : undefined}
              >
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
                    : formatTenderValue(tender.estimatedValueRon, tender.estimatedValueEur)}
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
