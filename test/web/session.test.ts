import { describe, expect, it } from "vitest"
import {
  AccessTokenExpired,
  AccessTokenMissing,
  InvalidCredentials,
  RateLimitExceeded,
  RefreshTokenReused,
  SessionRevoked
} from "../../src/domain/ApiErrors.js"
import { romanianCount } from "../../src/domain/RomanianFormat.js"
import { AppError, toAppError, UnreadableAnswer } from "../../src/web/api/errors.js"
import { bucharestDay, bucharestMidnight, daysLeft, formatAmount, formatTenderValue } from "../../src/web/format.js"
import {
  type AuthCalls,
  REFRESH_AHEAD_SECONDS,
  type Rotation,
  Session,
  type TokenPair
} from "../../src/web/session/Session.js"
import { formatWait, t } from "../../src/web/strings.js"

/**
 * The browser session's rules, with the auth calls, the storage and the timers replaced by
 * recording fakes (the browser tests drive the same class against the real server).
 */

const pair = (n: number, expiresIn = 900): TokenPair => ({
  accessToken: `access-${n}`,
  refreshToken: `refresh-${n}`,
  expiresIn
})

const setup = (stored: string | null = null) => {
  let storedToken = stored
  const timers: Array<{ run: () => void; ms: number; cleared: boolean }> = []
  const calls: Array<string> = []
  let next = 1
  let refreshResult: (token: string) => Promise<TokenPair> = async () => pair(++next)
  const auth: AuthCalls = {
    login: async (email, password) => {
      calls.push(`login ${email}`)
      if (password !== "right") throw new InvalidCredentials({ message: "no" })
      return pair(1)
    },
    refresh: (token) => {
      calls.push(`refresh ${token}`)
      return refreshResult(token)
    },
    logout: async () => {
      calls.push("logout")
    }
  }
  const session = new Session(
    auth,
    { read: () => storedToken, write: (token) => (storedToken = token) },
    {
      setTimeout: (run, ms) => {
        const timer = { run, ms, cleared: false }
        timers.push(timer)
        return timer
      },
      clearTimeout: (handle) => {
        if (handle) (handle as { cleared: boolean }).cleared = true
      }
    }
  )
  return {
    session,
    calls,
    timers,
    stored: () => storedToken,
    failRefreshWith: (make: () => unknown) => {
      refreshResult = async () => {
        throw make()
      }
    },
    refreshWorks: () => {
      refreshResult = async () => pair(++next)
    }
  }
}

describe("the browser session", () => {
  it("keeps the access token in memory, stores the refresh token, and refreshes a minute before expiry", async () => {
    const { session, timers, stored, calls } = setup()
    await session.login("a@b.ro", "right")
    expect(session.status).toBe("authenticated")
    expect(session.currentAccessToken()).toBe("access-1")
    expect(stored()).toBe("refresh-1")
    expect(timers.at(-1)?.ms).toBe((900 - REFRESH_AHEAD_SECONDS) * 1000)
    timers.at(-1)!.run()
    await Promise.resolve()
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(calls).toEqual(["login a@b.ro", "refresh refresh-1"])
    expect(session.currentAccessToken()).toBe("access-2")
    expect(stored()).toBe("refresh-2")
    expect(timers.at(-2)?.cleared).toBe(true)
  })

  it("a wrong password is a readable error and leaves the session anonymous", async () => {
    const { session } = setup()
    await session.restore()
    await expect(session.login("a@b.ro", "wrong")).rejects.toMatchObject({ code: "INVALID_CREDENTIALS" })
    expect(session.status).toBe("anonymous")
  })

  it("restores a stored session at page load with one refresh", async () => {
    const { session, calls } = setup("refresh-7")
    await session.restore()
    expect(session.status).toBe("authenticated")
    expect(calls).toEqual(["refresh refresh-7"])
  })

  it("on ACCESS_TOKEN_EXPIRED refreshes once and repeats the call; concurrent calls share one refresh", async () => {
    const { session, calls } = setup()
    await session.login("a@b.ro", "right")
    const seen: Array<string | undefined> = []
    const request = async () => {
      seen.push(session.currentAccessToken())
      if (session.currentAccessToken() === "access-1") throw new AccessTokenExpired({ message: "expired" })
      return "data"
    }
    const results = await Promise.all([session.call(request), session.call(request), session.call(request)])
    expect(results).toEqual(["data", "data", "data"])
    // The refresh token rotates on use: a second refresh with it would be a replay, so only one is sent.
    expect(calls.filter((call) => call.startsWith("refresh"))).toEqual(["refresh refresh-1"])
    expect(seen.filter((token) => token === "access-2")).toHaveLength(3)
  })

  it("a refused refresh ends the session with its reason and forgets the stored token", async () => {
    const { session, stored, failRefreshWith } = setup("refresh-1")
    failRefreshWith(() => new RefreshTokenReused({ message: "reused" }))
    await session.restore()
    expect(session.status).toBe("anonymous")
    expect(session.endedReason).toMatch(/siguranță/)
    expect(session.restoreError).toBeUndefined()
    expect(stored()).toBeNull()
  })

  it("a refresh that cannot reach the server keeps the stored token for the next try, which restores", async () => {
    const { session, stored, failRefreshWith, refreshWorks } = setup("refresh-1")
    failRefreshWith(() => ({ _tag: "RequestError", reason: "Transport" }))
    await session.restore()
    expect(session.status).toBe("anonymous")
    expect(session.restoreError).toMatchObject({ code: "NETWORK", message: t.errors.network })
    expect(session.endedReason).toBeUndefined()
    expect(stored()).toBe("refresh-1")
    // The login form's retry, the connection back.
    const statuses: Array<string> = []
    session.subscribe(() => statuses.push(session.status))
    refreshWorks()
    await session.restore()
    // The form stays while it runs (status anonymous, its error gone), so what is typed in it stays.
    expect(statuses).toEqual(["anonymous", "authenticated"])
    expect(session.restoreError).toBeUndefined()
    expect(stored()).toBe("refresh-2")
  })

  it("logout ends the session even when the server does not answer", async () => {
    const { session, stored, calls } = setup()
    await session.login("a@b.ro", "right")
    await session.logout()
    expect(calls.at(-1)).toBe("logout")
    expect(session.status).toBe("anonymous")
    expect(stored()).toBeNull()
    expect(session.currentAccessToken()).toBeUndefined()
  })

  it("a session that ends keeps its account and reason for the next login; a logout forgets the account", async () => {
    const { session } = setup()
    await session.login(" Ana@Firma.RO ", "right")
    expect(session.account).toBe("ana@firma.ro")
    const revoked = () =>
      session.call(async () => {
        throw new SessionRevoked({ message: "revoked" })
      })
    await expect(revoked()).rejects.toMatchObject({ code: "SESSION_REVOKED" })
    expect(session.status).toBe("anonymous")
    expect(session.endedReason).toBe(t.errors.byCode.SESSION_REVOKED)
    // A poll of the screen left under the login form, refused for want of a token: the reason stays.
    await expect(
      session.call(async () => {
        throw new AccessTokenMissing({ message: "missing" })
      })
    ).rejects.toMatchObject({ code: "ACCESS_TOKEN_MISSING" })
    expect(session.endedReason).toBe(t.errors.byCode.SESSION_REVOKED)
    expect(session.account).toBe("ana@firma.ro")
    await session.login("ana@firma.ro", "right")
    expect(session.endedReason).toBeUndefined()
    await session.logout()
    expect(session.account).toBeUndefined()
  })
})

/**
 * The server's refresh rule, as far as these tests need it: each refresh rotates the token, and a
 * replaced token refreshed again (past the server's grace) is a replay that revokes the session.
 */
const rotatingServer = () => {
  let current: string | undefined
  let issued = 0
  let revoked = false
  const refreshes: Array<string> = []
  const logouts: Array<string> = []
  let accessExpired = false
  const issue = (): TokenPair => {
    issued++
    current = `refresh-${issued}`
    return { accessToken: `access-${issued}`, refreshToken: current, expiresIn: 900 }
  }
  const auth = (tab: string, access: () => string | undefined): AuthCalls => ({
    login: async () => issue(),
    refresh: async (token) => {
      refreshes.push(`${tab} ${token}`)
      if (revoked || token !== current) {
        revoked = true
        throw new RefreshTokenReused({ message: "replayed" })
      }
      accessExpired = false
      return issue()
    },
    logout: async () => {
      if (accessExpired) throw new AccessTokenExpired({ message: "expired" })
      logouts.push(`${tab} ${access()}`)
      revoked = true
    }
  })
  return {
    auth,
    refreshes,
    logouts,
    revoked: () => revoked,
    expireAccessTokens: () => {
      accessExpired = true
    }
  }
}

/** A tab of the app: its own sessionStorage (`stored`), timers it fires by hand, and the app's channel. */
const tab = (name: string, server: ReturnType<typeof rotatingServer>, channelName: string, stored: string | null) => {
  let token = stored
  const timers: Array<() => void> = []
  const channel = new BroadcastChannel(channelName)
  let session: Session | undefined
  session = new Session(
    server.auth(name, () => session?.currentAccessToken()),
    { read: () => token, write: (next) => (token = next) },
    { setTimeout: (run) => timers.push(run), clearTimeout: () => undefined },
    {
      post: (rotation) => channel.postMessage(rotation),
      listen: (receive) => {
        channel.onmessage = (event: MessageEvent<Rotation>) => receive(event.data)
      }
    }
  )
  return { session, stored: () => token, fireTimer: () => timers.at(-1)?.(), close: () => channel.close() }
}

const delivered = () => new Promise((resolve) => setTimeout(resolve, 20))

describe("tabs of one session", () => {
  it("a duplicated tab (a copy of the stored token) and its original both stay logged in across refreshes", async () => {
    const server = rotatingServer()
    const channel = `tss.session.test-${Math.random()}`
    const original = tab("A", server, channel, null)
    await original.session.login("a@b.ro", "right")
    // "Duplicate tab" copies sessionStorage: the copy restores with the same token and rotates it.
    const copy = tab("B", server, channel, original.stored())
    await copy.session.restore()
    await delivered()
    expect(original.stored()).toBe(copy.stored())
    // Fourteen minutes on, the original's timer refreshes: with the token the copy left it.
    original.fireTimer()
    await delivered()
    expect(server.revoked()).toBe(false)
    expect(server.refreshes).toEqual(["B refresh-1", "A refresh-2"])
    expect(copy.stored()).toBe("refresh-3")
    copy.fireTimer()
    await delivered()
    expect([original.session.status, copy.session.status]).toEqual(["authenticated", "authenticated"])
    expect(original.session.currentAccessToken()).toBe("access-4")
    // Logging out in one tab logs the other out too (the server ended the session for both), also
    // when the logout first refreshed an expired access token (the other tab follows that rotation).
    server.expireAccessTokens()
    await copy.session.logout()
    await delivered()
    expect(server.logouts).toEqual(["B access-5"])
    expect([original.session.status, original.stored()]).toEqual(["anonymous", null])
    original.close()
    copy.close()
  })

  it("logout with an access token that expired refreshes first, so the server ends the session", async () => {
    const server = rotatingServer()
    const only = tab("A", server, `tss.session.test-${Math.random()}`, null)
    await only.session.login("a@b.ro", "right")
    server.expireAccessTokens()
    await only.session.logout()
    expect(server.refreshes).toEqual(["A refresh-1"])
    expect(server.logouts).toEqual(["A access-2"])
    expect(server.revoked()).toBe(true)
    expect(only.session.status).toBe("anonymous")
    only.close()
  })
})

describe("API failures as readable messages", () => {
  it("maps each kind of failure to a Romanian sentence with its code", () => {
    expect(toAppError(new InvalidCredentials({ message: "x" }))).toMatchObject({
      code: "INVALID_CREDENTIALS",
      message: "E-mailul sau parola nu sunt corecte."
    })
    const throttled = toAppError(new RateLimitExceeded({ message: "x", retry_after_seconds: 120 }))
    expect(throttled.retryAfterSeconds).toBe(120)
    expect(throttled.message).toContain("2 minute")
    expect(toAppError({ _tag: "RequestError", reason: "Transport" }).message).toMatch(/Serverul nu răspunde/)
    expect(toAppError({ _tag: "ResponseError", response: { status: 502 } }).message).toMatch(/Eroare pe server/)
    // A proxy's own 503 page (api/client.ts fails it by its status): the service is unavailable.
    expect(toAppError({ _tag: "ResponseError", response: { status: 503 } }).message).toBe(
      t.errors.byCode.SERVICE_UNAVAILABLE
    )
    // An answer the client could not decode is no refused input.
    expect(toAppError(new UnreadableAnswer())).toMatchObject({ code: "UnreadableAnswer", message: t.errors.unexpected })
    // The server's refusals before any route, whose messages are English, are told in Romanian too.
    expect(
      toAppError({ _tag: "PAYLOAD_TOO_LARGE", message: "The request body is larger than 1048576 bytes" })
    ).toMatchObject({ code: "PAYLOAD_TOO_LARGE", message: t.errors.byCode.PAYLOAD_TOO_LARGE })
    for (const code of ["UNSUPPORTED_MEDIA_TYPE", "URI_TOO_LONG", "REQUEST_HEADERS_TOO_LARGE", "REQUEST_TIMEOUT"])
      expect(toAppError({ _tag: code, message: "English" }).message, code).toBe(t.errors.byCode[code])
    // A code the app does not know yet: a Romanian sentence naming it, never the server's English.
    expect(toAppError({ _tag: "SOMETHING_NEW", message: "Something new happened" })).toMatchObject({
      code: "SOMETHING_NEW",
      message: "A apărut o eroare neașteptată (SOMETHING_NEW). Încercați din nou."
    })
    const invalid = toAppError({
      _tag: "HttpApiDecodeError",
      issues: [{ path: ["name"], message: "must not be empty" }],
      message: "x"
    })
    expect(invalid.code).toBe("VALIDATION_ERROR")
    expect(invalid.message).toBe("Datele trimise nu sunt valide. Denumire: completați câmpul.")
    // The same reason by field, for the form to show beside it.
    expect(invalid.reasonsFor("name")).toEqual([t.errors.reason.required])
    expect(invalid.reasonsFor("description")).toBeUndefined()
    expect(toAppError(new Error("boom"))).toBeInstanceOf(AppError)
    expect(toAppError(undefined).message).toMatch(/neașteptată/)
  })

  it("words the server's validation reasons in Romanian, never in English", () => {
    const decoded = (issues: ReadonlyArray<{ path: ReadonlyArray<string>; message: string }>) =>
      toAppError({ _tag: "HttpApiDecodeError", issues, message: "x" }).message
    expect(decoded([{ path: ["name"], message: "must be at most 200 characters" }])).toBe(
      "Datele trimise nu sunt valide. Denumire: cel mult 200 de caractere."
    )
    // A nullable field's schema adds "Expected null" to the real reason: said once, the real one.
    expect(
      decoded([
        { path: ["minValue"], message: "must not be negative" },
        { path: ["minValue"], message: "Expected null, actual -1" }
      ])
    ).toBe("Datele trimise nu sunt valide. Valoare minimă: cel puțin 0.")
    expect(decoded([{ path: ["cpvCodes", "2"], message: "unknown CPV code 99999999" }])).toBe(
      "Datele trimise nu sunt valide. Coduri CPV: codul 99999999 nu există în nomenclatorul CPV."
    )
    // Beside each field: its reasons, an item's under the list's field, the real one without "Expected null".
    const byField = toAppError({
      _tag: "HttpApiDecodeError",
      issues: [
        { path: ["cpvCodes", "2"], message: "unknown CPV code 99999999" },
        { path: ["minValue"], message: "must not be negative" },
        { path: ["minValue"], message: "Expected null, actual -1" },
        { path: ["constructor"], message: "is unexpected" }
      ],
      message: "x"
    })
    expect([...byField.fields]).toEqual([
      ["cpvCodes", ["codul 99999999 nu există în nomenclatorul CPV"]],
      ["minValue", [t.errors.reason.negative]]
    ])
    expect(decoded([{ path: ["counties", "0"], message: "must be one of Romania's 41 counties or București" }])).toBe(
      "Datele trimise nu sunt valide. Județe: alegeți unul dintre cele 41 de județe sau București."
    )
    // A reason the app does not know: a Romanian sentence, not the English one.
    expect(decoded([{ path: ["keywords"], message: "is unexpected, expected: 'name'" }])).toBe(
      "Datele trimise nu sunt valide. Cuvinte cheie: valoarea nu este acceptată."
    )
    // A field the app has no label for: the lead sentence alone, not the API's field name.
    expect(decoded([{ path: ["internalFlag"], message: "must be a boolean" }])).toBe("Datele trimise nu sunt valide.")
    // The same 400 decoded as the declared VALIDATION_ERROR (its `details` dotted, its message English).
    const declared = toAppError({
      _tag: "VALIDATION_ERROR",
      message: "url: webhooks cannot be delivered there: localhost resolves to 127.0.0.1 (127.0.0.0/8, Loopback)",
      details: [{ path: "url", message: "localhost resolves to 127.0.0.1 (127.0.0.0/8, Loopback)" }]
    })
    expect(declared).toMatchObject({
      code: "VALIDATION_ERROR",
      message: `Datele trimise nu sunt valide. URL: ${t.errors.reason.privateAddress}.`
    })
    expect(toAppError({ _tag: "VALIDATION_ERROR", message: "The request is not valid HTTP/1.1" }).message).toBe(
      "Datele trimise nu sunt valide."
    )
  })

  it("words waits in Romanian", () => {
    expect(formatWait(1)).toBe("o secundă")
    expect(formatWait(5)).toBe("5 secunde")
    expect(formatWait(45)).toBe("45 de secunde")
    expect(formatWait(60)).toBe("un minut")
    expect(formatWait(899)).toBe("15 minute")
    expect(formatWait(1500)).toBe("25 de minute")
  })

  it("counts in Romanian: digits grouped, and 'de' from 20 on unless the number ends in 01-19", () => {
    // The rule the digest e-mail shares (RomanianFormat).
    expect(romanianCount(3, "alertă", "alerte")).toBe("3 alerte")
    expect(romanianCount(101, "alertă", "alerte")).toBe("101 alerte")
    expect(t.alerts.markedAll(5)).toBe("5 alerte marcate ca citite.")
    expect(t.alerts.markedAll(25)).toBe("25 de alerte marcate ca citite.")
    expect(t.alerts.markedAll(1234)).toBe("1.234 de alerte marcate ca citite.")
    expect(t.nav.unreadAlerts(25)).toBe("25 de alerte necitite")
    expect(t.companies.watchlists(20)).toBe("20 de liste de urmărire")
    expect(t.companies.watchlists(1)).toBe("1 listă de urmărire")
    expect(t.nav.unreadAlerts(1)).toBe("1 alertă necitită")
    expect(t.tenders.total(1)).toBe("1 licitație")
    expect(t.tenders.total(120)).toBe("120 de licitații")
    // The days left to a deadline (a tender's list and detail): most open tenders have 20 or more.
    expect(t.tenders.daysLeft(19)).toBe("mai are 19 zile")
    expect(t.tenders.daysLeft(25)).toBe("mai are 25 de zile")
    expect(t.tenders.daysLeft(101)).toBe("mai are 101 zile")
    // The points a factor brought (the tender's breakdown), shown with one decimal.
    expect(t.detail.points(21.34)).toBe("21,3 puncte")
    expect(t.detail.points(0)).toBe("0 puncte")
    expect(t.detail.points(1)).toBe("1 punct")
    expect(t.detail.points(19.98)).toBe("20 de puncte")
    expect(t.detail.points(12)).toBe("12 puncte")
    // A limit of one: the singular noun, not "1 caractere".
    expect(t.errors.reason.tooLong(1)).toBe("cel mult 1 caracter")
    expect(t.errors.reason.tooMany(1)).toBe("cel mult 1 valoare")
    expect(t.errors.reason.tooLong(200)).toBe("cel mult 200 de caractere")
    expect(t.alerts.page(2, 1200)).toBe("Pagina 2 din 1.200")
    // The daily credit use (the Settings credits card's bars).
    expect(t.settings.dailyUseDay("06.12", 1)).toBe("06.12: 1 credit")
    expect(t.settings.dailyUseDay("06.12", 20)).toBe("06.12: 20 de credite")
    expect(t.settings.dailyUseDay("06.12", 1500)).toBe("06.12: 1.500 de credite")
  })

  it("writes a tender's value in RON, with EUR beside it only when the EUR value is known", () => {
    expect(formatTenderValue(1_250_000, 251_000)).toBe("1.250.000 RON · 251.000 EUR")
    expect(formatTenderValue(1_250_000, null)).toBe("1.250.000 RON")
  })

  it("writes an amount a consultant typed (a watchlist's range) as saved: cents only when it has them", () => {
    expect(formatAmount(999.5, "RON")).toBe("999,50 RON")
    expect(formatAmount(1000.4, "RON")).toBe("1.000,40 RON")
    expect(formatAmount(1_250_000, "RON")).toBe("1.250.000 RON")
    expect(formatAmount(0.05, "RON")).toBe("0,05 RON")
  })

  it("counts the Bucharest calendar days left to a deadline", () => {
    const now = new Date("2026-11-23T10:00:00Z")
    expect(daysLeft(new Date("2026-11-23T18:00:00Z"), now)).toBe(0)
    expect(daysLeft(new Date("2026-11-24T10:00:00Z"), now)).toBe(1)
    expect(daysLeft(new Date("2026-12-03T09:59:59Z"), now)).toBe(10)
    expect(daysLeft(new Date("2026-11-23T09:59:59Z"), now)).toBe(-1)
    // 22:00 in Bucharest (UTC+2): a deadline at 10:00 the next morning is tomorrow, not "the last day";
    // one at 09:00 two days later is two days away, though only 35 hours.
    const evening = new Date("2026-03-10T20:00:00Z")
    expect(t.tenders.daysLeft(daysLeft(new Date("2026-03-11T08:00:00Z"), evening))).toBe("mai are o zi")
    expect(t.tenders.daysLeft(daysLeft(new Date("2026-03-12T07:00:00Z"), evening))).toBe("mai are 2 zile")
    // Past midnight in Bucharest (22:30 UTC in winter) it is already the next day there.
    expect(daysLeft(new Date("2026-11-24T21:00:00Z"), new Date("2026-11-23T22:30:00Z"))).toBe(0)
    // Summer time (UTC+3): 23:30 UTC on 30 June is 1 July in Bucharest.
    expect(daysLeft(new Date("2026-07-01T20:00:00Z"), new Date("2026-06-30T21:30:00Z"))).toBe(0)
  })

  it("starts a picked day at midnight in Bucharest (winter and summer time), whatever the browser's zone", () => {
    expect(bucharestMidnight("2026-11-15").toISOString()).toBe("2026-11-14T22:00:00.000Z")
    expect(bucharestMidnight("2026-07-01").toISOString()).toBe("2026-06-30T21:00:00.000Z")
  })

  it("takes a report's default dates as Bucharest calendar days, not UTC ones", () => {
    // 00:30 in Bucharest on 24 November (UTC+2 in winter) is still the 23rd in UTC.
    expect(bucharestDay(new Date("2026-11-23T22:30:00Z"))).toBe("2026-11-24")
    // 02:30 in Bucharest on 1 July (UTC+3 in summer).
    expect(bucharestDay(new Date("2026-06-30T23:30:00Z"))).toBe("2026-07-01")
    expect(bucharestDay(new Date("2026-11-24T12:00:00Z"))).toBe("2026-11-24")
  })
})
