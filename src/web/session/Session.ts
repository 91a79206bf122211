import { AppError, SESSION_ENDED_CODES, toAppError } from "../api/errors.js"
import { t } from "../strings.js"

/** What login and refresh answer (spec 4.5): `expiresIn` seconds of the access token. */
export interface TokenPair {
  readonly accessToken: string
  readonly refreshToken: string
  readonly expiresIn: number
}

/** The three auth calls; failures are rejected promises (any value: they go through toAppError). */
export interface AuthCalls {
  readonly login: (email: string, password: string) => Promise<TokenPair>
  readonly refresh: (refreshToken: string) => Promise<TokenPair>
  /** Sent with the current access token. */
  readonly logout: () => Promise<void>
}

/** Where the refresh token lives between page loads (sessionStorage in the app; see README). */
export interface TokenStore {
  readonly read: () => string | null
  readonly write: (refreshToken: string | null) => void
}

/**
 * A refresh token replaced (`to`: the new pair; null: the session was logged out), told to the
 * other tabs of the app. A duplicated tab starts with a copy of its tab's stored token: without it,
 * the first of the two to refresh would leave the other a replaced token, and its next refresh, seen
 * by the server as a stolen token's replay, would end the session in both.
 */
export interface Rotation {
  readonly from: string
  readonly to: TokenPair | null
}

/** How tabs tell each other of rotations (a BroadcastChannel in the app). */
export interface RotationChannel {
  readonly post: (rotation: Rotation) => void
  readonly listen: (receive: (rotation: Rotation) => void) => void
}

export interface Timers {
  readonly setTimeout: (run: () => void, ms: number) => unknown
  readonly clearTimeout: (handle: unknown) => void
}

export type SessionStatus = "restoring" | "anonymous" | "authenticated"

/** Refresh this long before the access token expires, so a request never carries a stale one. */
export const REFRESH_AHEAD_SECONDS = 60

/**
 * The browser session: the access token in memory only, the refresh token in `store` so a reload
 * stays logged in. Refreshes silently before expiry and, once, on a 401 ACCESS_TOKEN_EXPIRED (a
 * laptop that slept past the timer); concurrent refreshes share one request, because the server
 * rotates the refresh token and treats a replayed one as theft. A refresh the server refuses ends
 * the session (status `anonymous`, with `endedReason`).
 */
export class Session {
  status: SessionStatus = "restoring"
  /** Why the last session ended without a logout (shown above the login form). */
  endedReason: string | undefined
  /**
   * Why the stored session could not be restored at page load though it may well be alive (no
   * connection, a server error): its refresh token stays stored, and the login form offers `restore`
   * again. A failure is not a logout.
   */
  restoreError: AppError | undefined
  /**
   * The e-mail of this tab's last login (lower-cased; the app keeps it over reloads), until a logout:
   * after a session that ended, a login with the same one returns to the screens as they were,
   * another starts afresh.
   */
  account: string | undefined
  private accessToken: string | undefined
  private refreshTimer: unknown
  private refreshing: Promise<void> | undefined
  private readonly listeners = new Set<() => void>()

  constructor(
    private readonly auth: AuthCalls,
    private readonly store: TokenStore,
    private readonly timers: Timers,
    private readonly tabs?: RotationChannel
  ) {
    // Another tab holding the same token replaced it (or logged out): follow it.
    tabs?.listen((rotation) => {
      if (this.store.read() !== rotation.from) return
      if (rotation.to === null) this.end(undefined)
      else this.accept(rotation.to)
    })
  }

  /** The access token for the next request (undefined when logged out). */
  readonly currentAccessToken = () => this.accessToken

  subscribe(listener: () => void) {
    this.listeners.add(listener)
    return () => {
      this.listeners.delete(listener)
    }
  }

  /**
   * At page load, and again on the login form's retry: trade a stored refresh token for a fresh pair,
   * or show the login form.
   */
  async restore() {
    if (this.store.read() === null) return this.setStatus("anonymous")
    this.restoreError = undefined
    // The login form's retry keeps the form, and what is typed in it, while it runs (its error goes).
    this.notify()
    try {
      await this.refresh()
    } catch (failure) {
      if (this.status === "authenticated") return
      // refresh() already ended the session (and forgot the token) when the token was refused; any
      // other failure leaves it stored, to be tried again.
      if (this.store.read() !== null) this.restoreError = toAppError(failure)
      this.setStatus("anonymous")
    }
  }

  async login(email: string, password: string) {
    const pair = await this.auth.login(email, password).catch((error) => {
      throw toAppError(error)
    })
    this.endedReason = undefined
    this.account = email.trim().toLowerCase()
    this.accept(pair)
  }

  async logout() {
    try {
      // An access token that expired (a laptop that slept, a failed silent refresh) is refreshed
      // first, so the server ends the session instead of answering 401.
      if (this.accessToken !== undefined) await this.call(() => this.auth.logout())
    } catch {
      // The session ends here whatever the server said (it may already be over).
    }
    // Read after the call: a refresh on the way replaced the token the other tabs now hold too.
    const refreshToken = this.store.read()
    if (refreshToken !== null) this.tabs?.post({ from: refreshToken, to: null })
    this.end(undefined)
  }

  /** One refresh at a time: callers arriving during a refresh wait for it. */
  refresh(): Promise<void> {
    if (this.refreshing !== undefined) return this.refreshing
    const refreshToken = this.store.read()
    if (refreshToken === null) {
      this.end(undefined)
      return Promise.reject(new AppError(t.login.sessionEnded, "REFRESH_TOKEN_INVALID"))
    }
    this.refreshing = this.auth
      .refresh(refreshToken)
      .then(
        (pair) => {
          this.accept(pair)
          this.tabs?.post({ from: refreshToken, to: pair })
        },
        (failure) => {
          const error = toAppError(failure)
          if (error.code !== undefined && SESSION_ENDED_CODES.has(error.code)) this.end(error.message)
          throw error
        }
      )
      .finally(() => {
        this.refreshing = undefined
      })
    return this.refreshing
  }

  /**
   * Runs an API call; when it fails with ACCESS_TOKEN_EXPIRED, refreshes and runs it once more. Any
   * failure comes out as an AppError; one that means the session is over also ends it.
   */
  async call<A>(request: () => Promise<A>): Promise<A> {
    try {
      return await request()
    } catch (failure) {
      const error = toAppError(failure)
      if (error.code === "ACCESS_TOKEN_EXPIRED") {
        await this.refresh()
        return await request().catch((again) => {
          throw this.checkEnded(toAppError(again))
        })
      }
      throw this.checkEnded(error)
    }
  }

  private checkEnded(error: AppError) {
    // A call answered after the session ended (a poll of the screen kept under the login form) leaves
    // the reason it ended with as it is.
    if (this.status === "authenticated" && error.code !== undefined && SESSION_ENDED_CODES.has(error.code))
      this.end(error.message)
    return error
  }

  private accept(pair: TokenPair) {
    this.restoreError = undefined
    this.accessToken = pair.accessToken
    this.store.write(pair.refreshToken)
    this.timers.clearTimeout(this.refreshTimer)
    const inSeconds = Math.max(5, pair.expiresIn - REFRESH_AHEAD_SECONDS)
    this.refreshTimer = this.timers.setTimeout(() => {
      // A failed silent refresh is retried by the next request's 401 path; nothing to show here.
      this.refresh().catch(() => undefined)
    }, inSeconds * 1000)
    this.setStatus("authenticated")
  }

  private end(reason: string | undefined) {
    this.timers.clearTimeout(this.refreshTimer)
    this.accessToken = undefined
    this.store.write(null)
    this.restoreError = undefined
    this.endedReason = reason
    // A logout (here or in another tab) forgets the account; a session that ended keeps it for the next login.
    if (reason === undefined) this.account = undefined
    this.setStatus("anonymous")
  }

  private setStatus(status: SessionStatus) {
    this.status = status
    this.notify()
  }

  private notify() {
    for (const listener of this.listeners) listener()
  }
}
