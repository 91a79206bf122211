import { SqlClient } from "@effect/sql"
import { parse } from "csv-parse/sync"
import { Effect, Option, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExportJson } from "../../src/http/export/ExportApi.js"
import { TenderList } from "../../src/http/tenders/TendersApi.js"
import { ScoredTendersRepo } from "../../src/infra/scoring/ScoredTendersRepo.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, addScoredTenders, api, createAccount, ledgerState } from "./fixtures.js"

/** `status=open|closed|all` on the key API's list and export (issue 20). */

const PAST = "2020-03-01T10:00:00Z"
const FUTURE = "2099-03-01T10:00:00Z"

// Publish dates inside April 2026 (Bucharest), for the export's range.
const april = { from: "2026-04-01", to: "2026-04-30" }
const published = (day: number) => `2026-04-${String(day).padStart(2, "0")}T08:00:00Z`

describe("status on GET /api/v1/tenders and /api/v1/export/tenders", () => {
  let server: TestServer
  let account: Account
  let open: Array<string>
  let closed: Array<string>
  let cancelled: string

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 10_000, exportPerHour: 10_000 } })
    account = await createAccount(server)
    // Open: five with a future deadline, one without a deadline. Closed: four past, one cancelled.
    open = await addScoredTenders(server, account, [
      ...[90, 80, 70, 60, 50].map((score, i) => ({ score, publishDate: published(1 + i), deadline: FUTURE })),
      { score: 45, publishDate: published(6), deadline: null }
    ])
    closed = await addScoredTenders(
      server,
      account,
      [95, 85, 75, 65].map((score, i) => ({ score, publishDate: published(10 + i), deadline: PAST }))
    )
    ;[cancelled] = await addScoredTenders(server, account, [
      { score: 99, publishDate: published(20), deadline: FUTURE }
    ])
    await server.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE tenders SET cancelled_at = '2026-04-21T08:00:00Z' WHERE id = ${cancelled!}`
      ).pipe(Effect.orDie)
    )
  })
  afterAll(() => server.close())

  const list = (params: Record<string, string | number>) =>
    request(api(server, "/api/v1/tenders", { companyId: account.companyId, ...params }), { token: account.key })
  const exportOf = (params: Record<string, string | number>) =>
    request(api(server, "/api/v1/export/tenders", { companyId: account.companyId, ...april, ...params }), {
      token: account.key
    })
  const idsOf = (body: { data: ReadonlyArray<{ tender_id: string }> }) => body.data.map((d) => d.tender_id)

  it("open: a future or no deadline and not cancelled; closed: the rest; all (the default): both", async () => {
    const openPage = await list({ status: "open", limit: 100 })
    expect(openPage.status).toBe(200)
    const openBody = Schema.decodeUnknownSync(TenderList)(openPage.body)
    expect(idsOf(openBody)).toEqual(open)
    expect(openBody.meta.total).toBe(6)

    const closedPage = await list({ status: "closed", limit: 100 })
    expect(closedPage.status).toBe(200)
    expect(idsOf(closedPage.body)).toEqual([cancelled, ...closed])
    expect(closedPage.body.meta.total).toBe(5)

    const all = await list({ status: "all", limit: 100 })
    expect(all.body.meta.total).toBe(11)
    const byDefault = await list({ limit: 100 })
    expect(idsOf(byDefault.body)).toEqual(idsOf(all.body))
  })

  it("the status combines with minScore, and meta.total counts the filtered set", async () => {
    const res = await list({ status: "open", minScore: 60 })
    expect(idsOf(res.body)).toEqual(open.slice(0, 4))
    expect(res.body.meta.total).toBe(4)
  })

  it("costs 1 credit per listed item, as without a status", async () => {
    const before = await ledgerState(server, account.tenantId)
    const res = await list({ status: "closed", limit: 2 })
    expect(res.headers.get("x-api-credits-cost")).toBe("2")
    const after = await ledgerState(server, account.tenantId)
    expect(after.charged - before.charged).toBe(2)
  })

  it.each(["OPEN", "pending", "", "open,closed"])(
    "status=%j is 400 VALIDATION_ERROR on the list and the export",
    async (status) => {
      for (const res of [await list({ status }), await exportOf({ status })]) {
        expect(res.status).toBe(400)
        expect(res.body).toMatchObject({ statusCode: 400, code: "VALIDATION_ERROR", message: expect.any(String) })
      }
    }
  )

  it("a repeated status is 400, never a 500", async () => {
    const url = `${api(server, "/api/v1/tenders", { companyId: account.companyId })}&status=open&status=closed`
    const res = await request(url, { token: account.key })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe("VALIDATION_ERROR")
  })

  it("pages of one status chain to exactly that status's list", async () => {
    const seen: Array<string> = []
    let res = await list({ status: "open", limit: 4 })
    seen.push(...idsOf(res.body))
    while (res.body.meta.has_more) {
      res = await list({ status: "open", limit: 4, cursor: res.body.meta.next_cursor })
      expect(res.status).toBe(200)
      expect(res.body.meta.total).toBe(6)
      seen.push(...idsOf(res.body))
    }
    expect(seen).toEqual(open)
  })

  it("a cursor is bound to its status: another status (or none, for open) is 400 INVALID_CURSOR", async () => {
    const openCursor: string = (await list({ status: "open", limit: 2 })).body.meta.next_cursor
    for (const other of [{ status: "closed" }, { status: "all" }, {}]) {
      const res = await list({ limit: 2, cursor: openCursor, ...other })
      expect(res.status).toBe(400)
      expect(res.body).toMatchObject({ statusCode: 400, code: "INVALID_CURSOR" })
    }
    // `all` and no status are the same query.
    const allCursor: string = (await list({ status: "all", limit: 2 })).body.meta.next_cursor
    expect((await list({ limit: 2, cursor: allCursor })).status).toBe(200)
    expect((await list({ status: "open", limit: 2, cursor: allCursor })).status).toBe(400)
  })

  it("the export filters by status in JSON and CSV, and its cursor is bound to the status", async () => {
    const json = await exportOf({ status: "open" })
    expect(json.status).toBe(200)
    const body = Schema.decodeUnknownSync(ExportJson)(json.body)
    // Oldest first: the export's own order.
    expect(idsOf(body)).toEqual(open)
    expect((await exportOf({ status: "closed" })).body.data.map((d: any) => d.tender_id)).toEqual([
      ...closed,
      cancelled
    ])
    expect((await exportOf({})).body.meta.count).toBe(11)

    const csv = await fetch(
      api(server, "/api/v1/export/tenders", {
        companyId: account.companyId,
        ...april,
        status: "closed",
        format: "csv"
      }),
      {
        headers: { authorization: `Bearer ${account.key}` }
      }
    )
    expect(csv.status).toBe(200)
    expect(csv.headers.get("x-export-count")).toBe("5")
    expect(csv.headers.get("x-api-credits-cost")).toBe("5")
    const records: Array<Record<string, string>> = parse((await csv.text()).replace(/^\uFEFF/, ""), { columns: true })
    expect(records.map((r) => r.tender_id)).toEqual([...closed, cancelled])
    expect(records.every((r) => r.deadline === "2020-03-01T10:00:00.000Z" || r.tender_id === cancelled)).toBe(true)

    const first = await exportOf({ status: "open", limit: 2 })
    const cursor: string = first.body.meta.next_cursor
    expect((await exportOf({ status: "closed", limit: 2, cursor })).body.code).toBe("INVALID_CURSOR")
    expect((await exportOf({ limit: 2, cursor })).body.code).toBe("INVALID_CURSOR")
    const second = await exportOf({ status: "open", limit: 2, cursor, format: "csv" })
    expect(second.status).toBe(200)
  })
})

describe("the open/closed boundary", () => {
  let server: TestServer
  let account: Account
  const DEADLINE = "2026-06-01T09:00:00.000Z"
  let id: string

  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server)
    ;[id] = await addScoredTenders(server, account, [{ score: 50, publishDate: published(2), deadline: DEADLINE }])
  })
  afterAll(() => server.close())

  /** The list and the export page, as of the instant `now`. */
  const read = (status: "open" | "closed", now: number) =>
    server.run(
      Effect.gen(function* () {
        const repo = yield* ScoredTendersRepo
        const listed = yield* repo.listPage({
          tenantId: account.tenantId,
          companyId: account.companyId,
          minScore: 0,
          status,
          now: new Date(now),
          bound: Option.none(),
          after: Option.none(),
          take: 10
        })
        const exported = yield* repo.exportPage({
          companyId: account.companyId,
          ...april,
          status,
          now: new Date(now),
          bound: yield* repo.snapshotBound,
          after: Option.none(),
          take: 10
        })
        return {
          listed: listed.rows.map((r) => r.tender_id),
          total: listed.total,
          exported: exported.map((r) => r.tender_id)
        }
      })
    )

  it("a tender is open until the millisecond before its deadline and closed at the deadline itself", async () => {
    const deadline = Date.parse(DEADLINE)
    expect(await read("open", deadline - 1)).toEqual({ listed: [id], total: 1, exported: [id] })
    expect(await read("closed", deadline - 1)).toEqual({ listed: [], total: 0, exported: [] })
    expect(await read("open", deadline)).toEqual({ listed: [], total: 0, exported: [] })
    expect(await read("closed", deadline)).toEqual({ listed: [id], total: 1, exported: [id] })
  })

  it("later pages tell open from closed as of page 1, so a deadline passing mid-pagination moves nothing", async () => {
    const soon = new Date(Date.now() + 1500).toISOString()
    const other = await createAccount(server)
    const ids = await addScoredTenders(server, other, [
      { score: 90, publishDate: published(1), deadline: FUTURE },
      { score: 80, publishDate: published(2), deadline: soon },
      { score: 70, publishDate: published(3), deadline: FUTURE }
    ])
    const page = (params: Record<string, string | number>) =>
      request(api(server, "/api/v1/tenders", { companyId: other.companyId, status: "open", ...params }), {
        token: other.key
      })
    const first = await page({ limit: 1 })
    expect(first.body.meta.total).toBe(3)
    await new Promise((resolve) => setTimeout(resolve, Date.parse(soon) - Date.now() + 200))
    // A new pagination no longer sees it...
    expect((await page({ limit: 1 })).body.meta.total).toBe(2)
    // ...but the one begun before the deadline goes on as it started.
    const second = await page({ limit: 5, cursor: first.body.meta.next_cursor })
    expect(second.status).toBe(200)
    expect(second.body.meta.total).toBe(3)
    expect(second.body.data.map((d: any) => d.tender_id)).toEqual(ids.slice(1))
  })

  it("a cancellation ingested between pages moves nothing either, on the list and on the export", async () => {
    const other = await createAccount(server)
    const ids = await addScoredTenders(
      server,
      other,
      [90, 80, 70].map((score, i) => ({ score, publishDate: published(1 + i), deadline: FUTURE }))
    )
    const list = (params: Record<string, string | number>) =>
      request(api(server, "/api/v1/tenders", { companyId: other.companyId, status: "open", ...params }), {
        token: other.key
      })
    const exported = (params: Record<string, string | number>) =>
      request(
        api(server, "/api/v1/export/tenders", { companyId: other.companyId, ...april, status: "open", ...params }),
        {
          token: other.key
        }
      )
    const firstListed = await list({ limit: 1 })
    const firstExported = await exported({ limit: 1 })
    expect(firstListed.body.meta.total).toBe(3)
    // The second tender's cancellation arrives (ingestion stamps cancelled_at with its own time).
    await server.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE tenders SET cancelled_at = now() WHERE id = ${ids[1]!}`
      ).pipe(Effect.orDie)
    )
    // A new pagination no longer sees it; the ones begun before go on as they started.
    expect((await list({ limit: 1 })).body.meta.total).toBe(2)
    const secondListed = await list({ limit: 5, cursor: firstListed.body.meta.next_cursor })
    expect(secondListed.status).toBe(200)
    expect(secondListed.body.meta.total).toBe(3)
    expect(secondListed.body.data.map((d: any) => d.tender_id)).toEqual(ids.slice(1))
    const secondExported = await exported({ limit: 5, cursor: firstExported.body.meta.next_cursor })
    expect(secondExported.status).toBe(200)
    expect(secondExported.body.data.map((d: any) => d.tender_id)).toEqual(ids.slice(1))
  })
})
