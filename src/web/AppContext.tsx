import { Cause, Effect as E, type Effect, Exit } from "effect"
import { createContext, type ReactNode, useContext, useMemo, useSyncExternalStore } from "react"
import { type ApiClient, makeApiClient } from "./api/client.js"
import { type Rotation, type RotationChannel, Session, type TokenStore } from "./session/Session.js"

/** Runs one typed API call for the session: the token attached, refreshed once on expiry, errors readable. */
export type CallApi = <A, Err>(request: (client: ApiClient) => Effect.Effect<A, Err>) => Promise<A>

interface AppServices {
  readonly session: Session
  readonly call: CallApi
}

const AppContext = createContext<AppServices | undefined>(undefined)

const REFRESH_TOKEN_KEY = "tss.refreshToken"
const ACCOUNT_KEY = "tss.account"

/**
 * The refresh token lives in sessionStorage (beside it `tss.account`, the login's e-mail: see
 * Session.account): it survives a reload of the tab (the session stays) but
 * not the tab itself, and tabs do not share it, so two tabs never race to rotate one token (a
 * replayed refresh token revokes the whole session). A duplicated tab starts with a copy of it: the
 * tab that rotates it tells the others (`tabChannel`). README, "Browser app".
 */
const sessionStorageStore: TokenStore = {
  read: () => window.sessionStorage.getItem(REFRESH_TOKEN_KEY),
  write: (token) =>
    token === null
      ? window.sessionStorage.removeItem(REFRESH_TOKEN_KEY)
      : window.sessionStorage.setItem(REFRESH_TOKEN_KEY, token)
}

/** The app's tabs of this origin, told of each refresh-token rotation and logout. */
const tabChannel = (): RotationChannel | undefined => {
  if (typeof BroadcastChannel === "undefined") return undefined
  const channel = new BroadcastChannel("tss.session")
  return {
    post: (rotation) => channel.postMessage(rotation),
    listen: (receive) => {
      channel.onmessage = (event: MessageEvent<Rotation>) => receive(event.data)
    }
  }
}

/** The failure itself (a tagged API error, a client error), not the FiberFailure wrapping it. */
export const runApi = <A, Err>(effect: Effect.Effect<A, Err>): Promise<A> =>
  E.runPromiseExit(effect).then((exit) => {
    if (Exit.isSuccess(exit)) return exit.value
    throw Cause.squash(exit.cause)
  })

export const makeServices = (): AppServices => {
  let session: Session | undefined
  const client = makeApiClient(() => session?.currentAccessToken())
  session = new Session(
    {
      login: (email, password) => runApi(client.auth.login({ payload: { email, password } })).then((r) => r.data),
      refresh: (refreshToken) => runApi(client.auth.refresh({ payload: { refreshToken } })).then((r) => r.data),
      logout: () => runApi(client.auth.logout())
    },
    sessionStorageStore,
    { setTimeout: (run, ms) => window.setTimeout(run, ms), clearTimeout: (h) => window.clearTimeout(h as number) },
    tabChannel()
  )
  // The login's e-mail, kept over a reload like the refresh token, forgotten at logout (Session.account).
  session.account = window.sessionStorage.getItem(ACCOUNT_KEY) ?? undefined
  session.subscribe(() => {
    if (session.account === undefined) window.sessionStorage.removeItem(ACCOUNT_KEY)
    else window.sessionStorage.setItem(ACCOUNT_KEY, session.account)
  })
  const call: CallApi = (request) => session.call(() => runApi(request(client)))
  return { session, call }
}

export const AppProvider = ({ children }: { children: ReactNode }) => {
  const services = useMemo(makeServices, [])
  return <AppContext.Provider value={services}>{children}</AppContext.Provider>
}

export const useServices = () => {
  const services = useContext(AppContext)
  if (services === undefined) throw new Error("useServices outside AppProvider")
  return services
}

/** The session's status; re-renders on login, logout and a session that ends. */
export const useSessionStatus = () => {
  const { session } = useServices()
  return useSyncExternalStore(
    (listener) => session.subscribe(listener),
    () => session.status
  )
}
