import { type RefObject, useCallback, useEffect, useRef, useState } from "react"
import { type AppError, toAppError } from "./api/errors.js"

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: AppError | undefined
  readonly loading: boolean
  readonly reload: () => void
}

/**
 * Loads data for a screen: re-runs when `deps` change, ignores answers that arrive after a newer
 * request (fast filter changes), keeps the last data while reloading. A failed load keeps the last
 * data only when it was loaded for the same `deps` (a refresh that failed); for other `deps` (a filter
 * changed) it would show what the user no longer asked for beside the error, so it is dropped.
 */
export const useLoad = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const [state, setState] = useState<{ data: A | undefined; error: AppError | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true
  })
  const [version, setVersion] = useState(0)
  const latest = useRef(0)
  // Which `deps` the requests and the data are for: a count moved by each change of them.
  const depsChanges = useRef(0)
  const dataFor = useRef(-1)
  // Declared before the load below: its effect runs first, so a load sees the count of its `deps`.
  useEffect(() => {
    depsChanges.current++
  }, [...deps])
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names the dependencies of `load`.
  useEffect(() => {
    const request = ++latest.current
    const forDeps = depsChanges.current
    setState((previous) => ({ ...previous, loading: true }))
    load().then(
      (data) => {
        if (request !== latest.current) return
        dataFor.current = forDeps
        setState({ data, error: undefined, loading: false })
      },
      (error) => {
        if (request !== latest.current) return
        setState((previous) => ({
          data: dataFor.current === forDeps ? previous.data : undefined,
          error: toAppError(error),
          loading: false
        }))
      }
    )
  }, [...deps, version])
  const reload = useCallback(() => setVersion((v) => v + 1), [])
  return { ...state, reload }
}

/** An action (save, delete) with its pending flag and readable error. */
export const useAction = () => {
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<AppError | undefined>(undefined)
  const run = useCallback(async <A>(action: () => Promise<A>): Promise<A | undefined> => {
    setPending(true)
    setError(undefined)
    try {
      return await action()
    } catch (failure) {
      setError(toAppError(failure))
      return undefined
    } finally {
      setPending(false)
    }
  }, [])
  const clearError = useCallback(() => setError(undefined), [])
  return { pending, error, run, clearError }
}

/**
 * What an inline form (a company's, a watchlist's) is open for, the focus moved as a dialog moves it:
 * the form takes it when it opens (`useFocusOnMount` on its first field), and when it closes it goes
 * back to the button that opened it or, that one gone (the "add" button hides while a form is open,
 * a card's goes with its record), to `addButton`. Without this it fell to the page's top, where a
 * keyboard or screen reader user starts over.
 */
export const useInlineForm = <A>() => {
  const [editing, setEditing] = useState<A | undefined>(undefined)
  const opener = useRef<HTMLElement | null>(null)
  const addButton = useRef<HTMLButtonElement>(null)
  const open = useCallback((what: A) => {
    if (document.activeElement instanceof HTMLElement) opener.current = document.activeElement
    setEditing(what)
  }, [])
  useEffect(() => {
    if (editing !== undefined || opener.current === null) return
    const back = opener.current
    opener.current = null
    focusFirstShown([back, addButton.current])
  }, [editing])
  return { editing, open, setEditing, addButton }
}

/** Focuses the first of `candidates` still in the page: where the focus goes when its element is gone. */
const focusFirstShown = (candidates: ReadonlyArray<HTMLElement | null | undefined>) =>
  candidates.find((element) => element?.isConnected)?.focus()

/**
 * The focus after a card's "delete", as useInlineForm moves it after a form: the button that had it
 * goes with its card, so the focus goes to the button in the same place of the card that takes its
 * place (the next one; the one before for the last), else to `addButton`, else to the heading of
 * the list's section (focusable: tabIndex -1), not to the page's top. `start` as the delete begins
 * (the focus still on its button); `failed` when it did not happen gives the focus back to the button
 * (disabled meanwhile, it lost it); `settled`, once the list reloaded, ends the watch when the card
 * stayed (an action that removes the card only under some filters: an alert marked read).
 */
export const useRemovalFocus = (addButton: RefObject<HTMLElement | null>) => {
  const removal = useRef<{
    readonly button: HTMLElement
    readonly neighbours: ReadonlyArray<HTMLElement | undefined>
    readonly heading: HTMLElement | null
  } | null>(null)
  const start = useCallback(() => {
    const button = document.activeElement
    const card = button instanceof HTMLElement ? button.closest("li") : null
    if (!(button instanceof HTMLElement) || card === null) return
    const place = [...card.querySelectorAll<HTMLElement>("button")].indexOf(button)
    const samePlace = (sibling: Element | null) => sibling?.querySelectorAll<HTMLElement>("button")[place]
    removal.current = {
      button,
      neighbours: [samePlace(card.nextElementSibling), samePlace(card.previousElementSibling)],
      heading: card.closest("section")?.querySelector<HTMLElement>("h1, h2") ?? null
    }
  }, [])
  const failed = useCallback(() => {
    removal.current?.button.focus()
    removal.current = null
  }, [])
  const settled = useCallback(() => {
    if (removal.current?.button.isConnected) removal.current = null
  }, [])
  // After each render: the list reloaded without the card, its button is no longer in the page.
  useEffect(() => {
    if (removal.current === null || removal.current.button.isConnected) return
    const { neighbours, heading } = removal.current
    removal.current = null
    focusFirstShown([...neighbours, addButton.current, heading])
  })
  return { start, failed, settled }
}

/** A ref whose element takes the focus once it is shown (an inline form's first field). */
export const useFocusOnMount = <E extends HTMLElement>() => {
  const element = useRef<E>(null)
  useEffect(() => element.current?.focus(), [])
  return element
}
