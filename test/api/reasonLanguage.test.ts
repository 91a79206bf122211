import { Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { reasonLanguageFor } from "../../src/domain/AcceptLanguage.js"
import { en } from "../../src/domain/scoring/phrasebooks/en.js"
import { ro } from "../../src/domain/scoring/phrasebooks/ro.js"
import { TenderScore } from "../../src/http/tenders/TendersApi.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addScoredTenders, api, createAccount } from "./fixtures.js"

/** The key API's reasons follow Accept-Language: English by default, Romanian when it is preferred. */

describe("reasonLanguageFor (Accept-Language, RFC 9110 q-values)", () => {
  it.each([
    [undefined, "en"],
    ["", "en"],
    ["en", "en"],
    ["ro", "ro"],
    ["RO", "ro"],
    ["ro-RO", "ro"],
    ["ro-RO,ro;q=0.9,en-US;q=0.8,en;q=0.7", "ro"],
    ["en-US,en;q=0.9,ro;q=0.8", "en"],
    ["ro;q=0.8, en;q=0.9", "en"],
    ["en;q=0.5, ro-RO", "ro"],
    // Equal weights: English, the default, stays.
    ["en, ro", "en"],
    ["ro, en", "en"],
    // Romanian named, English not (so not acceptable): Romanian is preferred.
    ["fr, ro;q=0.3", "ro"],
    ["de-DE, ro-MD;q=0.1", "ro"],
    // The wildcard gives English the same weight as Romanian, or more.
    ["*;q=0.5, ro;q=0.4", "en"],
    ["ro;q=0.5, *", "en"],
    ["ro, *;q=0.5", "ro"],
    // Unknown languages, a refusal, malformed entries: English.
    ["fr", "en"],
    ["fr-FR, de;q=0.9", "en"],
    ["ro;q=0", "en"],
    ["ro;q=abc", "en"],
    ["ro;q=2", "en"],
    ["ro;q=0.1234", "en"],
    ["röm", "en"],
    [";;;,,,", "en"]
  ] as const)("%j → %s", (header, language) => {
    expect(reasonLanguageFor(header)).toBe(language)
  })
})

describe("GET /api/v1/tenders/:id/score with Accept-Language", () => {
  let server: TestServer
  let account: Account
  let tenderId: string
  beforeAll(async () => {
    server = await startTestServer({
      rateLimits: { generalPerMinute: 10_000 },
      corsOrigins: ["https://app.example.test"]
    })
    account = await createAccount(server, { credits: 1_000 })
    ;[tenderId] = await addScoredTenders(server, account, [{ score: 75, publishDate: "2026-07-01T08:00:00Z" }])
  })
  afterAll(() => server.close())

  const score = (headers: Record<string, string> = {}, id = tenderId) =>
    request(api(server, `/api/v1/tenders/${id}/score`, { companyId: account.companyId }), {
      token: account.key,
      headers
    })

  /** The headers Vary names (CORS is on here, so Origin is among them). */
  const varied = (headers: Headers) => (headers.get("vary") ?? "").split(",").map((name) => name.trim())

  // This company has no description, watchlist or fiscal code: two factors' reasons are fixed sentences.
  const expectLanguage = (body: any, say: typeof en) => {
    Schema.decodeUnknownSync(TenderScore)(body)
    expect(body.data.factors.semantic.reason).toBe(say.semantic.noProfile)
    expect(body.data.factors.historical.reason).toBe(say.historical.noFiscalCode)
  }

  it("no header: English, said in Content-Language, with Vary: Accept-Language", async () => {
    const res = await score()
    expect(res.status).toBe(200)
    expectLanguage(res.body, en)
    expect(res.headers.get("content-language")).toBe("en")
    expect(varied(res.headers)).toContain("Accept-Language")
    expect(res.body.meta.credits.cost).toBe(2)
  })

  it.each([["ro"], ["ro-RO"], ["ro-RO,ro;q=0.9,en;q=0.8"], ["fr, ro;q=0.5"]])(
    "%s: Romanian reasons, Content-Language: ro",
    async (header) => {
      const res = await score({ "accept-language": header })
      expect(res.status).toBe(200)
      expectLanguage(res.body, ro)
      expect(res.headers.get("content-language")).toBe("ro")
      expect(varied(res.headers)).toContain("Accept-Language")
    }
  )

  it.each([["en-US,en;q=0.9,ro;q=0.8"], ["de"], ["ro;q=0"], ["ro;q=nonsense"], ["*"]])(
    "%s: English reasons (never a 400)",
    async (header) => {
      const res = await score({ "accept-language": header })
      expect(res.status).toBe(200)
      expectLanguage(res.body, en)
      expect(res.headers.get("content-language")).toBe("en")
    }
  )

  it("Vary joins the CORS Origin; an error varies too but names no Content-Language", async () => {
    const cors = await score({ "accept-language": "ro", origin: "https://app.example.test" })
    expect(cors.headers.get("vary")).toBe("Origin, Accept-Language")
    expect(cors.headers.get("access-control-allow-origin")).toBe("https://app.example.test")
    const missing = await score({ "accept-language": "ro" }, "11111111-1111-4111-8111-111111111111")
    expect(missing.status).toBe(404)
    expect(varied(missing.headers)).toContain("Accept-Language")
    expect(missing.headers.get("content-language")).toBeNull()
  })

  it("an upper-case company or tender id gives the same reasons (ids are compared as stored, lower-case)", async () => {
    const lower = await score()
    const upper = await request(
      api(server, `/api/v1/tenders/${tenderId.toUpperCase()}/score`, { companyId: account.companyId.toUpperCase() }),
      { token: account.key }
    )
    expect(upper.status).toBe(200)
    expectLanguage(upper.body, en)
    expect(upper.body.data).toEqual(lower.body.data)
  })

  it("an answer given before the handler (a 400 of the query, a 401) does not vary on the language", async () => {
    const invalid = await request(api(server, `/api/v1/tenders/${tenderId}/score`, { companyId: "bad" }), {
      token: account.key,
      headers: { "accept-language": "ro" }
    })
    expect(invalid.status).toBe(400)
    expect(invalid.headers.get("cache-control")).toBe("no-store")
    expect(invalid.headers.get("content-language")).toBeNull()
  })

  it("the OpenAPI document declares the optional Accept-Language header of the score endpoint", async () => {
    const document: any = await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json()
    const operation = document.paths["/api/v1/tenders/{id}/score"].get
    const header = operation.parameters.find((p: any) => p.in === "header")
    expect(header).toMatchObject({ name: "accept-language", in: "header", required: false })
    expect(header.description).toContain("ro-RO")
    expect(operation.description).toContain("Content-Language")
  })
})
