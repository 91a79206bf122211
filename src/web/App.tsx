import { useCallback, useEffect, useRef, useState } from "react"
import { AppProvider, useServices, useSessionStatus } from "./AppContext.js"
import { Loading, ScreenHeading } from "./components/ui.js"
import { Link, matchRoute, navigate, paths, Redirect, useLocation } from "./router.js"
import { AlertsScreen } from "./screens/Alerts.js"
import { CompaniesScreen } from "./screens/Companies.js"
import { LoginScreen } from "./screens/Login.js"
import { SettingsScreen } from "./screens/Settings.js"
import { TenderDetailScreen } from "./screens/TenderDetail.js"
import { TendersScreen } from "./screens/Tenders.js"
import { WatchlistsScreen } from "./screens/Watchlists.js"
import { formatNumber, t } from "./strings.js"
import { UnreadContext } from "./unread.js"

export const App = () => (
  <AppProvider>
    <Root />
  </AppProvider>
)

const Root = () => {
  const { session } = useServices()
  const status = useSessionStatus()
  // Whether the screens were shown in this page: a session that then ends (revoked elsewhere, past its
  // last day) leaves them, and a form being filled, under the login form instead of throwing them away.
  const [shown, setShown] = useState(false)
  useEffect(() => {
    session.restore()
  }, [session])
  // The address is the last account's too (its company's id, its search words, its watchlist in the
  // Alerts filter): a logout leaves it for the login page, and another account that logs in after a
  // session ended starts at its own companies, not on a screen of the last one's. Done as the session
  // changes, before the screens render the address again.
  const addressAccount = useRef<string | undefined>(undefined)
  useEffect(
    () =>
      session.subscribe(() => {
        const loggedOut = session.status === "anonymous" && session.endedReason === undefined
        const otherAccount = session.status === "authenticated" && session.account !== addressAccount.current
        if (addressAccount.current !== undefined && (loggedOut || otherAccount))
          navigate(paths.companies(), { replace: true })
        if (session.status === "authenticated" || loggedOut) addressAccount.current = session.account
      }),
    [session]
  )
  useEffect(() => {
    if (status === "authenticated") setShown(true)
  }, [status])
  // A logout (no reason) closes the screens: the next one to log in here sees nothing of them.
  const interrupted = status === "anonymous" && shown && session.endedReason !== undefined
  // The login form over the screens is a dialog: once it closes, the focus goes back where it was in
  // them (the field being filled, the button pressed), not to the page's top. Its last place is
  // followed as it moves, since the screens going inert take it away.
  const screens = useRef<HTMLDivElement>(null)
  const lastFocus = useRef<HTMLElement | null>(null)
  useEffect(() => {
    const follow = (event: FocusEvent) => {
      if (event.target instanceof HTMLElement && screens.current?.contains(event.target))
        lastFocus.current = event.target
    }
    document.addEventListener("focusin", follow)
    return () => document.removeEventListener("focusin", follow)
  }, [])
  const wasInterrupted = useRef(false)
  useEffect(() => {
    if (wasInterrupted.current && !interrupted && lastFocus.current?.isConnected) lastFocus.current.focus()
    wasInterrupted.current = interrupted
  }, [interrupted])
  if (status === "restoring") return <Loading />
  if (status === "anonymous" && !interrupted) return <LoginScreen />
  return (
    <>
      {interrupted && <LoginScreen overlay />}
      <div inert={interrupted} ref={screens}>
        {/* Another account logging in gets screens of its own, not the ones left by the last. */}
        <Shell key={session.account ?? ""} />
      </div>
    </>
  )
}

declare global {
  interface Window {
    /** Tests only: the unread poll's interval in ms, set before the app loads (README, "Browser app"). */
    tssUnreadPollMs?: number
  }
}

/** The unread count is polled each minute; a browser test sets a shorter interval, none is under 100 ms. */
const unreadPollMs = () => {
  const configured = window.tssUnreadPollMs
  return typeof configured === "number" && Number.isFinite(configured) && configured >= 100 ? configured : 60_000
}

const Shell = () => {
  const { session, call } = useServices()
  const location = useLocation()
  const [unread, setUnread] = useState<number | undefined>(undefined)
  const [changes, setChanges] = useState(0)
  // The last answer (count and newest unread alert); a poll answering otherwise is a change.
  const lastSeen = useRef<string | undefined>(undefined)
  // Counts are asked in order; an answer to a request older than the one already shown is dropped
  // (a poll sent before a "mark read" that answers after its refresh would put the old count back).
  const requested = useRef(0)
  const shown = useRef(0)
  const [menuOpen, setMenuOpen] = useState(false)
  const load = useCallback(
    (poll: boolean) => {
      // Not while the session is over (the screens wait under the login form).
      if (session.status !== "authenticated") return
      const request = ++requested.current
      call((c) => c.alerts.list({ urlParams: { unread: true, limit: 1 } })).then(
        (page) => {
          if (request < shown.current) return
          shown.current = request
          const seen = `${page.meta.total} ${page.data[0]?.id ?? ""}`
          // A screen's own refresh follows its own change, which it has shown already: only polls count.
          if (poll && lastSeen.current !== undefined && seen !== lastSeen.current) setChanges((n) => n + 1)
          lastSeen.current = seen
          setUnread(page.meta.total)
        },
        () => {}
      )
    },
    [call, session]
  )
  const refresh = useCallback(() => load(false), [load])
  useEffect(() => {
    load(false)
    const timer = window.setInterval(() => load(true), unreadPollMs())
    return () => window.clearInterval(timer)
  }, [load])
  // biome-ignore lint/correctness/useExhaustiveDependencies: close the menu on every navigation.
  useEffect(() => setMenuOpen(false), [location])

  const route = matchRoute(location.split("?")[0]!)
  const section = route.name === "alerts" ? "alerts" : route.name === "settings" ? "settings" : "companies"
  return (
    <UnreadContext.Provider value={{ count: unread, changes, refresh }}>
      <header className="topbar">
        <Link to={paths.companies()} className="brand">
          {t.appName}
        </Link>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen((open) => !open)}
        >
          {t.nav.menu}
          {unread !== undefined && unread > 0 && <span className="count">{formatNumber(unread, 0)}</span>}
        </button>
        <nav className={menuOpen ? "nav open" : "nav"}>
          <Link
            to={paths.companies()}
            className={section === "companies" ? "active" : undefined}
            current={section === "companies" ? "page" : undefined}
          >
            {t.nav.companies}
          </Link>
          <Link
            to={paths.alerts()}
            className={section === "alerts" ? "active" : undefined}
            current={section === "alerts" ? "page" : undefined}
            testId="nav-alerts"
          >
            {t.nav.alerts}
            {unread !== undefined && (
              <span
                className={unread > 0 ? "count" : "count zero"}
                data-testid="unread-count"
                title={t.nav.unreadAlerts(unread)}
              >
                {formatNumber(unread, 0)}
              </span>
            )}
          </Link>
          <Link
            to={paths.settings()}
            className={section === "settings" ? "active" : undefined}
            current={section === "settings" ? "page" : undefined}
          >
            {t.nav.settings}
          </Link>
          <button type="button" className="link" onClick={() => session.logout()} data-testid="logout">
            {t.nav.logout}
          </button>
        </nav>
      </header>
      <main className="content">
        <Screen location={location} />
      </main>
    </UnreadContext.Provider>
  )
}

const Screen = ({ location }: { readonly location: string }) => {
  const pathname = location.split("?")[0]!
  if (pathname === "/") return <Redirect to={paths.companies()} />
  const route = matchRoute(pathname)
  switch (route.name) {
    case "companies":
      return <CompaniesScreen />
    case "tenders":
      return <TendersScreen key={route.companyId} companyId={route.companyId} />
    case "tender":
      return <TenderDetailScreen companyId={route.companyId} tenderId={route.tenderId} />
    case "watchlists":
      return <WatchlistsScreen key={route.companyId} companyId={route.companyId} />
    case "alerts":
      return <AlertsScreen />
    case "settings":
      return <SettingsScreen />
    case "notFound":
      return (
        <section>
          <ScreenHeading title={t.notFoundPage} />
          <Link to={paths.companies()}>{t.toHome}</Link>
        </section>
      )
  }
}
