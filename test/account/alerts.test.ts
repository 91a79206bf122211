import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import {
  addAlert,
  addCompany,
  addTender,
  client,
  query,
  type SeededAccount,
  seedAccount,
  signIn,
  waitingOn
} from "./fixtures.js"

describe("alerts (spec 2.10, 3, 4.8)", () => {
  let server: TestServer
  let account: SeededAccount
  let api: ReturnType<typeof client>
  let roads: { id: string; name: string }
  let it_: { id: string; name: string }
  const ids: Array<string> = []
  const base = Date.parse("2026-03-01T10:00:00Z")
  const at = (minutes: number) => new Date(base + minutes * 60_000)

  beforeAll(async () => {
    server = await startTestServer()
    account = await seedAccount(server, "activ")
    api = client(server, (await signIn(server, account)).accessToken)
    roads = (await api.post("/api/v1/watchlists", { name: "Roads" })).body.data
    it_ = (await api.post("/api/v1/watchlists", { name: "IT" })).body.data
    // 25 alerts, one a minute: even minutes on Roads, odd on IT; verdicts cycle; every third read.
    const verdicts = ["GO", "RESEARCH", "SKIP"] as const
    for (let i = 0; i < 25; i++) {
      const tenderId = await addTender(server, `Tender ${i}`)
      ids.push(
        await addAlert(server, {
          tenantId: account.tenantId,
          companyId: account.companyId,
          watchlistId: i % 2 === 0 ? roads.id : it_.id,
          tenderId,
          score: 50 + i,
          verdict: verdicts[i % 3]!,
          read: i % 3 === 0,
          createdAt: at(i)
        })
      )
    }
  })
  afterAll(() => server.close())

  it("GET lists newest first with the fields of 2.10 (plus the company) and meta {page, limit, total, totalPages}; default limit 20", async () => {
    const [company] = await query<{ name: string }>(server, "SELECT name FROM companies WHERE id = $1", [
      account.companyId
    ])
    const { status, body } = await api.get("/api/v1/alerts")
    expect(status).toBe(200)
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 25, totalPages: 2 })
    expect(body.data).toHaveLength(20)
    expect(body.data[0]).toEqual({
      id: ids[24],
      tenderId: expect.any(String),
      tenderTitle: "Tender 24",
      score: 74,
      verdict: "GO",
      watchlistId: roads.id,
      watchlistName: "Roads",
      companyId: account.companyId,
      companyName: company!.name,
      read: true,
      createdAt: at(24).toISOString()
    })
    expect(body.data.map((a: any) => a.id)).toEqual(ids.slice(5).reverse())
  })

  it("page and limit paginate; a page past the end is empty", async () => {
    const second = await api.get("/api/v1/alerts?page=2&limit=10")
    expect(second.body.meta).toEqual({ page: 2, limit: 10, total: 25, totalPages: 3 })
    expect(second.body.data.map((a: any) => a.id)).toEqual(ids.slice(5, 15).reverse())
    const last = await api.get("/api/v1/alerts?page=3&limit=10")
    expect(last.body.data.map((a: any) => a.id)).toEqual(ids.slice(0, 5).reverse())
    const beyond = await api.get("/api/v1/alerts?page=9&limit=10")
    expect(beyond.status).toBe(200)
    expect(beyond.body.data).toEqual([])
    expect((await api.get("/api/v1/alerts?limit=100")).body.data).toHaveLength(25)
  })

  it("ties on createdAt are broken by id (descending), stable across pages", async () => {
    const other = await seedAccount(server, "activ")
    const otherApi = client(server, (await signIn(server, other)).accessToken)
    const watchlist = (await otherApi.post("/api/v1/watchlists", { name: "Same time" })).body.data
    const same = new Date("2026-04-01T00:00:00Z")
    const created: Array<string> = []
    for (let i = 0; i < 4; i++)
      created.push(
        await addAlert(server, {
          tenantId: other.tenantId,
          companyId: other.companyId,
          watchlistId: watchlist.id,
          tenderId: await addTender(server),
          createdAt: same
        })
      )
    const pages = [
      ...(await otherApi.get("/api/v1/alerts?limit=2&page=1")).body.data,
      ...(await otherApi.get("/api/v1/alerts?limit=2&page=2")).body.data
    ].map((a: any) => a.id)
    expect(pages).toEqual([...created].sort().reverse())
  })

  it("alerts raised at the same instant (one scoring pass) come by score, highest first, then by id", async () => {
    const other = await seedAccount(server, "activ")
    const otherApi = client(server, (await signIn(server, other)).accessToken)
    const watchlist = (await otherApi.post("/api/v1/watchlists", { name: "One pass" })).body.data
    const same = new Date("2026-04-02T08:00:00Z")
    const byScore = new Map<number, string>()
    for (const score of [55, 91, 70])
      byScore.set(
        score,
        await addAlert(server, {
          tenantId: other.tenantId,
          companyId: other.companyId,
          watchlistId: watchlist.id,
          tenderId: await addTender(server),
          score,
          createdAt: same
        })
      )
    const later = await addAlert(server, {
      tenantId: other.tenantId,
      companyId: other.companyId,
      watchlistId: watchlist.id,
      tenderId: await addTender(server),
      score: 10,
      createdAt: new Date(same.getTime() + 1)
    })
    const { body } = await otherApi.get("/api/v1/alerts")
    expect(body.data.map((a: any) => a.id)).toEqual([later, byScore.get(91), byScore.get(70), byScore.get(55)])
  })

  it("a consultant with several client companies sees each alert's company", async () => {
    const consultant = await seedAccount(server, "consultant")
    const consultantApi = client(server, (await signIn(server, consultant)).accessToken)
    const second = await addCompany(server, consultant.tenantId, "Drumuri Nord SRL")
    const mine = (await consultantApi.post("/api/v1/watchlists", { name: "Prima" })).body.data
    const theirs = (await consultantApi.post("/api/v1/watchlists", { name: "A doua", companyId: second.id })).body.data
    for (const [i, [companyId, watchlistId]] of [
      [consultant.companyId, mine.id],
      [second.id, theirs.id]
    ].entries())
      await addAlert(server, {
        tenantId: consultant.tenantId,
        companyId: companyId!,
        watchlistId: watchlistId!,
        tenderId: await addTender(server),
        createdAt: at(i)
      })
    const [first] = await query<{ name: string }>(server, "SELECT name FROM companies WHERE id = $1", [
      consultant.companyId
    ])
    const { body } = await consultantApi.get("/api/v1/alerts")
    expect(body.data.map((a: any) => [a.companyId, a.companyName, a.watchlistName])).toEqual([
      [second.id, "Drumuri Nord SRL", "A doua"],
      [consultant.companyId, first!.name, "Prima"]
    ])
    // PATCH answers with the same fields.
    const patched = await consultantApi.patch(`/api/v1/alerts/${body.data[0].id}`, { read: true })
    expect(patched.body.data).toMatchObject({ companyId: second.id, companyName: "Drumuri Nord SRL" })
  })

  it("filters: unread, watchlistId, verdict, dateFrom (strictly after), combined", async () => {
    const unread = await api.get("/api/v1/alerts?unread=true&limit=100")
    expect(unread.body.meta.total).toBe(16)
    expect(unread.body.data.every((a: any) => a.read === false)).toBe(true)
    const read = await api.get("/api/v1/alerts?unread=false&limit=100")
    expect(read.body.meta.total).toBe(9)
    expect(read.body.data.every((a: any) => a.read === true)).toBe(true)
    const onIt = await api.get(`/api/v1/alerts?watchlistId=${it_.id}&limit=100`)
    expect(onIt.body.meta.total).toBe(12)
    expect(onIt.body.data.every((a: any) => a.watchlistName === "IT")).toBe(true)
    const go = await api.get("/api/v1/alerts?verdict=GO&limit=100")
    expect(go.body.meta.total).toBe(9)
    const after = await api.get(`/api/v1/alerts?dateFrom=${encodeURIComponent(at(20).toISOString())}`)
    expect(after.body.data.map((a: any) => a.id)).toEqual(ids.slice(21).reverse())
    const dateOnly = await api.get("/api/v1/alerts?dateFrom=2026-03-01")
    expect(dateOnly.body.meta.total).toBe(25)
    const withOffset = await api.get(`/api/v1/alerts?dateFrom=${encodeURIComponent("2026-03-01T12:19:00+02:00")}`)
    expect(withOffset.body.meta.total).toBe(5)
    // A date-time without an offset is UTC, whatever the server's zone; an unencoded "+" still counts.
    expect((await api.get("/api/v1/alerts?dateFrom=2026-03-01T10:19:00")).body.meta.total).toBe(5)
    expect((await api.get("/api/v1/alerts?dateFrom=2026-03-01T12:19:00+02:00")).body.meta.total).toBe(5)
    const combined = await api.get(`/api/v1/alerts?unread=true&verdict=RESEARCH&watchlistId=${roads.id}`)
    // Roads = even i; RESEARCH = i % 3 == 1; unread = i % 3 != 0 → i in {4, 10, 16, 22}.
    expect(combined.body.data.map((a: any) => a.id)).toEqual([ids[22], ids[16], ids[10], ids[4]])
  })

  it("out-of-range or malformed query parameters are 400 naming the parameter", async () => {
    for (const [query, path] of [
      ["page=0", "page"],
      ["page=-1", "page"],
      ["page=1.5", "page"],
      ["page=abc", "page"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      // Decimal digits only: no hex, exponent, sign, padding or fraction that Number() would read.
      ["limit=0x10", "limit"],
      ["limit=1e1", "limit"],
      ["limit=%2B10", "limit"],
      ["limit=%2010", "limit"],
      ["limit=10.0", "limit"],
      ["unread=yes", "unread"],
      ["verdict=MAYBE", "verdict"],
      ["watchlistId=123", "watchlistId"],
      ["dateFrom=yesterday", "dateFrom"],
      ["dateFrom=2026-13-45", "dateFrom"],
      ["dateFrom=2026-03-01T25:00:00Z", "dateFrom"]
    ] as const) {
      const response = await api.get(`/api/v1/alerts?${query}`)
      expect(response.status, query).toBe(400)
      expect(response.body.code).toBe("VALIDATION_ERROR")
      expect(response.body.details.map((d: any) => d.path)).toContain(path)
    }
  })

  it("dateFrom naming a day that does not exist (or year 0000) is 400, not rolled over into the next month", async () => {
    for (const dateFrom of [
      "2026-02-30",
      "2026-02-29T10:00:00Z",
      "2026-04-31T00:00:00+03:00",
      "0000-01-01",
      "0000-06-01T12:00:00Z"
    ]) {
      const response = await api.get(`/api/v1/alerts?dateFrom=${encodeURIComponent(dateFrom)}`)
      expect(response.status, dateFrom).toBe(400)
      expect(response.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR" })
      expect(response.body.details[0]).toEqual({ path: "dateFrom", message: expect.stringContaining("existing") })
    }
    // A leap day exists; so does the first day PostgreSQL knows.
    expect((await api.get("/api/v1/alerts?dateFrom=2024-02-29")).status).toBe(200)
    expect((await api.get("/api/v1/alerts?dateFrom=0001-01-01")).body.meta.total).toBeGreaterThan(0)
  })

  it("alerts of a deleted watchlist are kept and still carry its name; an unknown watchlistId filter is 404", async () => {
    const doomed = (await api.post("/api/v1/watchlists", { name: "Doomed" })).body.data
    const alertId = await addAlert(server, {
      tenantId: account.tenantId,
      companyId: account.companyId,
      watchlistId: doomed.id,
      tenderId: await addTender(server, "Kept tender"),
      createdAt: at(-100)
    })
    expect((await api.delete(`/api/v1/watchlists/${doomed.id}`)).status).toBe(204)
    const kept = await api.get(`/api/v1/alerts?watchlistId=${doomed.id}`)
    expect(kept.status).toBe(200)
    expect(kept.body.data).toEqual([
      expect.objectContaining({ id: alertId, watchlistName: "Doomed", tenderTitle: "Kept tender" })
    ])
    const unknown = await api.get("/api/v1/alerts?watchlistId=00000000-0000-4000-8000-000000000000")
    expect(unknown.status).toBe(404)
    await query(server, "DELETE FROM alerts WHERE id = $1", [alertId])
  })

  it("PATCH /api/v1/alerts/:id {read} toggles read and unread", async () => {
    const target = ids[1]!
    const marked = await api.patch(`/api/v1/alerts/${target}`, { read: true })
    expect(marked.status).toBe(200)
    expect(marked.body.data).toMatchObject({ id: target, read: true, tenderTitle: "Tender 1", watchlistName: "IT" })
    const unmarked = await api.patch(`/api/v1/alerts/${target}`, { read: false })
    expect(unmarked.body.data.read).toBe(false)
    const rows = await query<{ read: boolean }>(server, "SELECT read FROM alerts WHERE id = $1", [target])
    expect(rows[0]!.read).toBe(false)
  })

  it("PATCH validation and ownership: missing/non-boolean read 400, malformed id 400, unknown id 404", async () => {
    expect((await api.patch(`/api/v1/alerts/${ids[1]}`, {})).status).toBe(400)
    expect((await api.patch(`/api/v1/alerts/${ids[1]}`, { read: "yes" })).status).toBe(400)
    expect((await api.patch("/api/v1/alerts/42", { read: true })).status).toBe(400)
    const unknown = await api.patch("/api/v1/alerts/00000000-0000-4000-8000-000000000000", { read: true })
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe("NOT_FOUND")
  })

  it("PATCH of an alert deleted while it is marked (the retention job) is 404, never a 500", async () => {
    const alertId = await addAlert(server, {
      tenantId: account.tenantId,
      companyId: account.companyId,
      watchlistId: roads.id,
      tenderId: await addTender(server, "Closed long ago"),
      createdAt: at(-200)
    })
    // A lock on tenders stops the PATCH where it reads the alert with its tender's title; meanwhile
    // the alert is deleted, as retention deletes a closed tender's alerts.
    const holder = new pg.Client({ connectionString: server.databaseUrl })
    await holder.connect()
    try {
      await holder.query("BEGIN")
      await holder.query("LOCK TABLE tenders IN ACCESS EXCLUSIVE MODE")
      const marking = api.patch(`/api/v1/alerts/${alertId}`, { read: true })
      await waitingOn(server, "tenders")
      await holder.query("DELETE FROM alerts WHERE id = $1", [alertId])
      await holder.query("COMMIT")
      const answer = await marking
      expect(answer.status).toBe(404)
      expect(answer.body).toMatchObject({ statusCode: 404, code: "NOT_FOUND", message: "No such alert" })
    } finally {
      await holder.end()
    }
  })

  it("PATCH /api/v1/alerts/mark-all-read is never taken for an id and returns the number updated", async () => {
    // An account of its own: marking everything read must not change the other tests' alerts.
    const own = await seedAccount(server, "activ")
    const ownApi = client(server, (await signIn(server, own)).accessToken)
    const watchlist = (await ownApi.post("/api/v1/watchlists", { name: "Own" })).body.data
    for (const [i, read] of [false, false, true].entries()) {
      await addAlert(server, {
        tenantId: own.tenantId,
        companyId: own.companyId,
        watchlistId: watchlist.id,
        tenderId: await addTender(server, `Own tender ${i}`),
        read,
        createdAt: at(i)
      })
    }
    expect((await ownApi.get("/api/v1/alerts?unread=true")).body.meta.total).toBe(2)
    const { status, body } = await ownApi.patch("/api/v1/alerts/mark-all-read")
    expect(status).toBe(200)
    expect(body).toEqual({ data: { updated: 2 } })
    expect((await ownApi.get("/api/v1/alerts?unread=true")).body.meta.total).toBe(0)
    // Nothing left to update the second time; the other account's alerts are untouched.
    expect((await ownApi.patch("/api/v1/alerts/mark-all-read")).body).toEqual({ data: { updated: 0 } })
    expect((await api.get("/api/v1/alerts?unread=true")).body.meta.total).toBe(16)
  })

  it("mark-all-read takes no body: one naming a filter is refused and marks nothing read", async () => {
    const own = await seedAccount(server, "activ")
    const ownApi = client(server, (await signIn(server, own)).accessToken)
    const watchlist = (await ownApi.post("/api/v1/watchlists", { name: "Own" })).body.data
    await addAlert(server, {
      tenantId: own.tenantId,
      companyId: own.companyId,
      watchlistId: watchlist.id,
      tenderId: await addTender(server, "Filter tender"),
      read: false,
      createdAt: at(1)
    })
    const refused = await ownApi.patch("/api/v1/alerts/mark-all-read", { watchlistId: watchlist.id })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({
      code: "VALIDATION_ERROR",
      details: [{ path: "watchlistId", message: "is unexpected: this request takes no body" }]
    })
    expect((await ownApi.patch("/api/v1/alerts/mark-all-read", [])).status).toBe(400)
    expect((await ownApi.get("/api/v1/alerts?unread=true")).body.meta.total).toBe(1)
    // An empty object is no filter: the request as the spec has it.
    expect((await ownApi.patch("/api/v1/alerts/mark-all-read", {})).body).toEqual({ data: { updated: 1 } })
  })

  it("every endpoint needs an access token", async () => {
    const anonymous = client(server)
    expect((await anonymous.get("/api/v1/alerts")).status).toBe(401)
    expect((await anonymous.patch("/api/v1/alerts/mark-all-read")).status).toBe(401)
    expect((await anonymous.patch(`/api/v1/alerts/${ids[0]}`, { read: true })).status).toBe(401)
  })
})
