/**
 * A long list as it was left (the pages loaded, where it was scrolled), kept in memory for the tab so
 * that coming back to it (Back, a detail's "back" link) shows it again instead of its first page at
 * the top. A reload forgets it; an entry older than a few minutes is not shown (the list may have
 * changed meanwhile); only the last few lists are kept.
 */
export interface RememberedList<A> {
  readonly state: A
  readonly scrollY: number
  /** The item opened from the list, whose link takes the focus back on return (keyboard and screen reader users' place). */
  readonly openedId?: string | undefined
}

const KEPT_MS = 5 * 60_000
const KEPT_LISTS = 10

const lists = new Map<string, RememberedList<unknown> & { readonly at: number }>()

/** Keeps `list` as the one left at `key` (the list's address and the account showing it). */
export const rememberList = <A>(key: string, list: RememberedList<A>) => {
  lists.delete(key)
  lists.set(key, { ...list, at: Date.now() })
  for (const oldest of lists.keys()) {
    if (lists.size <= KEPT_LISTS) break
    lists.delete(oldest)
  }
}

/** The list left at `key`, when it was left within the last few minutes. */
export const recallList = <A>(key: string): RememberedList<A> | undefined => {
  const list = lists.get(key)
  if (list === undefined) return undefined
  if (Date.now() - list.at > KEPT_MS) {
    lists.delete(key)
    return undefined
  }
  return list as RememberedList<A>
}
