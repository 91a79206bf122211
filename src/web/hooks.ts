import { useCallback, useEffect, useRef, useState } from "react"
import { type AppError, toAppError } from "./api/errors.js"

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: AppError | undefined
  readonly loading: boolean
  readonly reload: () => void
}

/**
 * Loads data for a screen: re-runs when `deps` change, ignores answers that arrive after a newer
 * request (fast filter changes), keeps the last data while reloading.
 */
export const useLoad = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const [state, setState] = useState<{ data: A | undefined; error: AppError | undefined; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true
  })
  const [version, setVersion] = useState(0)
  const latest = useRef(0)
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names the dependencies of `load`.
  useEffect(() => {
    const request = ++latest.current
    setState((previous) => ({ ...previous, loading: true }))
    load().then(
      (data) => {
        if (request === latest.current) setState({ data, error: undefined, loading: false })
      },
      (error) => {
        if (request === latest.current)
          setState((previous) => ({ ...previous, error: toAppError(error), loading: false }))
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
  return { pending, error, run, clearError: () => setError(undefined) }
}
