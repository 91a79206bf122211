import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addScoredTenders } from "../api/fixtures.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { client, seedAccount, signIn } from "./fixtures.js"

/** The app's tender list filters and orders (issue 20): status, words, county, CPV, deadline window, sort. */

let server: TestServer
let api: ReturnType<typeof client>
let companyId: string
let ids: Array<string>

const PAST = "2020-03-01T10:00:00Z"

beforeAll(async () => {
  server = await startTestServer()
  const account = await seedAccount(server, "consultant")
  companyId = account.companyId
  api = client(server, (await signIn(server, account)).accessToken)
  ids = await addScoredTenders(server, account, [
    // 0
    {
      title: "Reabilitare Șoseaua de centură",
      score: 90,
      publishDate: "2026-11-10T08:00:00Z",
      county: "Cluj",
      deadline: "2099-05-10T09:00:00Z",
      valueRon: 500_000
    },
    // 1: a cedilla spelling in storage still matches a comma-below query.
    {
      title: "Iluminat public şcoala nr. 5",
      score: 80,
      publishDate: "2026-11-09T08:00:00Z",
      county: "Brașov",
      deadline: "2099-05-20T21:30:00Z",
      valueRon: 2_000_000,
      additionalCpvs: ["71000000-8"]
    },
    // 2: no deadline, no value
    {
      title: "Canalizare comuna Florești",
      score: 70,
      publishDate: "2026-11-08T08:00:00Z",
      county: "CLUJ",
      deadline: null,
      valueRon: null
    },
    // 3: closed
    {
      title: "Pod peste Mureș",
      score: 60,
      publishDate: "2026-11-07T08:00:00Z",
      county: "Mureș",
      deadline: PAST,
      valueRon: 900_000
    },
    // 4
    {
      title: "Mobilier școlar",
      score: 50,
      publishDate: "2026-11-06T08:00:00Z",
      county: null,
      deadline: "2099-05-01T08:00:00Z",
      valueRon: 50_000,
      additionalCpvs: ["71300000-1"]
    }
  ])
})
afterAll(() => server.close())

const list = (query: Record<string, string> = {}) =>
  api.get(`/api/v1/app/companies/${companyId}/tenders?${new URLSearchParams(query).toString()}`)
const idsOf = (body: { data: ReadonlyArray<{ id: string }> }) => body.data.map((t) => t.id)
const at = (...indexes: Array<number>) => indexes.map((i) => ids[i])

describe("GET /api/v1/app/companies/:companyId/tenders filters", () => {
  it("status: open, closed, all (also the default)", async () => {
    expect(idsOf((await list({ status: "open" })).body)).toEqual(at(0, 1, 2, 4))
    expect(idsOf((await list({ status: "closed" })).body)).toEqual(at(3))
    expect(idsOf((await list({ status: "all" })).body)).toEqual(at(0, 1, 2, 3, 4))
    expect(idsOf((await list()).body)).toEqual(at(0, 1, 2, 3, 4))
  })

  it("q: every word in the title or the authority, diacritics and case ignored", async () => {
    expect(idsOf((await list({ q: "soseaua" })).body)).toEqual(at(0))
    expect(idsOf((await list({ q: "ȘCOALA" })).body)).toEqual(at(1))
    expect(idsOf((await list({ q: "sco" })).body)).toEqual(at(1, 4))
    expect(idsOf((await list({ q: "sco mobilier" })).body)).toEqual(at(4))
    // The authority's name counts too ("Primăria …").
    expect((await list({ q: "primaria" })).body.meta.total).toBe(5)
    // Words are letters and digits: punctuation (LIKE's `%` and `_` included) separates them and matches nothing itself.
    expect((await list({ q: "%" })).body.meta.total).toBe(5)
    expect(idsOf((await list({ q: "nr.5" })).body)).toEqual(at(1))
    expect((await list({ q: "_pod%" })).body.meta.total).toBe(1)
    const body = (await list({ q: "pod", status: "open" })).body
    expect(body.meta.total).toBe(0)
  })

  it("county: the authority's county, case and diacritics ignored", async () => {
    expect(idsOf((await list({ county: "Cluj" })).body)).toEqual(at(0, 2))
    expect(idsOf((await list({ county: "Brașov" })).body)).toEqual(at(1))
  })

  it("cpv: the main or an additional code under the chosen one", async () => {
    expect(idsOf((await list({ cpv: "71000000-8" })).body)).toEqual(at(1, 4))
    expect(idsOf((await list({ cpv: "71300000-1" })).body)).toEqual(at(4))
    expect((await list({ cpv: "45000000-7" })).body.meta.total).toBe(5)
    expect((await list({ cpv: "45233000-9" })).body.meta.total).toBe(0)
  })

  it("deadline window: Bucharest days, both inclusive; no deadline is outside any window", async () => {
    // 2099-05-20T21:30Z is 2099-05-21 00:30 in Bucharest.
    expect(idsOf((await list({ deadlineFrom: "2099-05-01", deadlineTo: "2099-05-20" })).body)).toEqual(at(0, 4))
    expect(idsOf((await list({ deadlineFrom: "2099-05-21" })).body)).toEqual(at(1))
    expect(idsOf((await list({ deadlineTo: "2099-05-01" })).body)).toEqual(at(3, 4))
    expect(idsOf((await list({ deadlineFrom: "2099-05-01", deadlineTo: "2099-05-01" })).body)).toEqual(at(4))
  })

  it("sort: by deadline (nearest first, none last) and by value (largest first, unknown last)", async () => {
    expect(idsOf((await list({ sort: "deadline" })).body)).toEqual(at(3, 4, 0, 1, 2))
    expect(idsOf((await list({ sort: "deadline", status: "open" })).body)).toEqual(at(4, 0, 1, 2))
    expect(idsOf((await list({ sort: "value" })).body)).toEqual(at(1, 3, 0, 4, 2))
    expect(idsOf((await list({ sort: "score" })).body)).toEqual(at(0, 1, 2, 3, 4))
  })

  it("pages of every order chain to the whole list, with filters combined", async () => {
    for (const sort of ["score", "deadline", "value"]) {
      for (const filters of [{}, { county: "Cluj" }, { status: "open", q: "a" }]) {
        const whole = idsOf((await list({ sort, ...filters })).body)
        const seen: Array<string> = []
        let page = (await list({ sort, ...filters, limit: "1" })).body
        seen.push(...idsOf(page))
        while (page.meta.hasMore) {
          const next = await list({ sort, ...filters, limit: "1", cursor: page.meta.nextCursor })
          expect(next.status).toBe(200)
          page = next.body
          expect(page.meta.total).toBe(whole.length)
          seen.push(...idsOf(page))
        }
        expect(seen, `${sort} ${JSON.stringify(filters)}`).toEqual(whole)
      }
    }
  })

  it("a cursor is bound to the filters and the order", async () => {
    const cursor = (await list({ sort: "deadline", county: "Cluj", limit: "1" })).body.meta.nextCursor
    expect((await list({ sort: "deadline", county: "Cluj", limit: "1", cursor })).status).toBe(200)
    for (const other of [
      { sort: "value", county: "Cluj" },
      { sort: "deadline" },
      { sort: "deadline", county: "Cluj", q: "canalizare" },
      { sort: "deadline", county: "Cluj", status: "open" },
      { sort: "deadline", county: "Cluj", deadlineTo: "2099-12-31" }
    ]) {
      const res = await list({ ...other, limit: "1", cursor })
      expect(res.status, JSON.stringify(other)).toBe(400)
      expect(res.body.code).toBe("INVALID_CURSOR")
    }
  })

  it.each([
    ["status", "OPEN"],
    ["q", ""],
    ["q", "   "],
    ["q", "x".repeat(201)],
    ["q", "a\u0000b"],
    ["county", "Cluj-Napoca"],
    ["county", ""],
    ["cpv", "45000000"],
    ["cpv", "4500000-7"],
    ["deadlineFrom", "2026-02-30"],
    ["deadlineTo", "tomorrow"],
    ["sort", "title"],
    ["sort", ""]
  ])("%s=%j is 400 with the uniform error body", async (name, value) => {
    const res = await list({ [name]: value })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR", message: expect.any(String) })
  })

  it("deadlineTo before deadlineFrom is 400 naming deadlineTo", async () => {
    const res = await list({ deadlineFrom: "2099-05-02", deadlineTo: "2099-05-01" })
    expect(res.status).toBe(400)
    expect(res.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR", details: [{ path: "deadlineTo" }] })
  })
})
