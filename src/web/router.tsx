import { type MouseEvent, type ReactNode, type Ref, useEffect, useSyncExternalStore } from "react"

/**
 * A small history router: the app's few paths need no library. Deep links work because the server
 * answers any non-API path that asks for HTML with the app's page.
 */
const listeners = new Set<() => void>()
// The path of the screen shown; a move to another path (not a filter change in the query) hands the
// focus to the new screen's heading, which ScreenHeading takes once it is shown.
let shownPath = window.location.pathname
let headingWantsFocus = false
const notify = () => {
  if (window.location.pathname !== shownPath) {
    shownPath = window.location.pathname
    headingWantsFocus = true
  }
  for (const listener of listeners) listener()
}
// Whether the address shown was reached by going back (the browser's Back or Forward, or a "back"
// link of the app), where a screen may show itself as it was left (`listMemory.ts`).
let cameBack = false
window.addEventListener("popstate", () => {
  cameBack = true
  notify()
})

/** `back`: a link back to where the consultant came from, which returns there as it was left. */
export const navigate = (to: string, options: { replace?: boolean; back?: boolean | undefined } = {}) => {
  if (options.replace) window.history.replaceState(null, "", to)
  else window.history.pushState(null, "", to)
  cameBack = options.back === true
  window.scrollTo(0, 0)
  notify()
}

/** True when the address shown was reached by going back (not a reload, not a link forward). */
export const arrivedBack = () => cameBack

/**
 * True once after a move to another screen: the link that was followed is gone, so without a new
 * focus a screen reader says nothing and the next Tab starts from the page's top.
 */
export const takeHeadingFocus = () => {
  const take = headingWantsFocus
  headingWantsFocus = false
  return take
}

/** The current path and query, re-rendering on navigation. */
export const useLocation = () =>
  useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => window.location.pathname + window.location.search
  )

export type Route =
  | { readonly name: "companies" }
  | { readonly name: "tenders"; readonly companyId: string }
  | { readonly name: "tender"; readonly companyId: string; readonly tenderId: string }
  | { readonly name: "watchlists"; readonly companyId: string }
  | { readonly name: "alerts" }
  | { readonly name: "settings" }
  | { readonly name: "notFound" }

const UUID = "[0-9a-fA-F-]{36}"
const patterns: ReadonlyArray<[RegExp, (m: RegExpMatchArray) => Route]> = [
  [/^\/(companies\/?)?$/, () => ({ name: "companies" })],
  [new RegExp(`^/companies/(${UUID})/tenders/?$`), (m) => ({ name: "tenders", companyId: m[1]! })],
  [
    new RegExp(`^/companies/(${UUID})/tenders/(${UUID})/?$`),
    (m) => ({ name: "tender", companyId: m[1]!, tenderId: m[2]! })
  ],
  [new RegExp(`^/companies/(${UUID})/watchlists/?$`), (m) => ({ name: "watchlists", companyId: m[1]! })],
  [/^\/alerts\/?$/, () => ({ name: "alerts" })],
  [/^\/settings\/?$/, () => ({ name: "settings" })]
]

/** An id as the paths take them (a watchlist id read from a query, say). */
export const isUuid = (text: string) => new RegExp(`^${UUID}$`).test(text)

/** A `YYYY-MM-DD` day as a date input and the filters' queries write it. */
export const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/

/** The query string of a screen's filters that differ from their defaults ("" when none does). */
export const queryOf = <F extends object>(filters: F, defaults: F): string => {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(filters)) {
    if (value !== defaults[name as keyof F]) params.set(name, String(value))
  }
  const query = params.toString()
  return query === "" ? "" : `?${query}`
}

/** Which screen a path shows. */
export const matchRoute = (pathname: string): Route => {
  for (const [pattern, route] of patterns) {
    const match = pathname.match(pattern)
    if (match) return route(match)
  }
  return { name: "notFound" }
}

export const paths = {
  companies: () => "/companies",
  tenders: (companyId: string) => `/companies/${companyId}/tenders`,
  /** A tender's detail; `from`, the app path it is opened from, is where its "back" link returns (`backPath`). */
  tender: (companyId: string, tenderId: string, from?: string) =>
    `/companies/${companyId}/tenders/${tenderId}${from === undefined ? "" : `?${new URLSearchParams({ from })}`}`,
  watchlists: (companyId: string) => `/companies/${companyId}/watchlists`,
  alerts: () => "/alerts",
  settings: () => "/settings"
}

/**
 * The `from` path of a query when it is one of this app's own paths (same origin, a screen the app
 * has), else undefined: an address typed or shared with `from=https://elsewhere` or `//elsewhere`
 * must never make a link of the app lead out of it.
 */
export const backPath = (search: string): string | undefined => {
  const from = new URLSearchParams(search).get("from")
  // Only a path: not a URL, not a protocol-relative `//host` nor `/\host` (browsers read both as a host).
  if (from === null || !from.startsWith("/") || from.startsWith("//") || from.startsWith("/\\")) return undefined
  const url = new URL(from, window.location.origin)
  if (url.origin !== window.location.origin || matchRoute(url.pathname).name === "notFound") return undefined
  return url.pathname + url.search
}

export const Link = (props: {
  readonly to: string
  readonly children: ReactNode
  readonly className?: string | undefined
  readonly testId?: string | undefined
  /** A link back to where the consultant came from (see `navigate`). */
  readonly back?: boolean | undefined
  /** Called when the link is followed in the app (not opened in another tab), before the move. */
  readonly onFollow?: (() => void) | undefined
  /** The element, e.g. to give it the focus back on return. */
  readonly anchorRef?: Ref<HTMLAnchorElement> | undefined
  /** `page` on the navigation's link to the section shown (said by screen readers, not only drawn). */
  readonly current?: "page" | undefined
}) => {
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    props.onFollow?.()
    navigate(props.to, { back: props.back })
  }
  return (
    <a
      href={props.to}
      onClick={onClick}
      className={props.className}
      data-testid={props.testId}
      ref={props.anchorRef}
      aria-current={props.current}
    >
      {props.children}
    </a>
  )
}

/** Replaces the current entry (e.g. `/` → `/companies`). */
export const Redirect = ({ to }: { readonly to: string }) => {
  useEffect(() => navigate(to, { replace: true }), [to])
  return null
}
