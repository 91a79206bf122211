import { randomUUID } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Tender } from "../../src/domain/tenders/TenderRecord.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TenderStore } from "../../src/infra/tenders/TenderStore.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { type Account, api, createAccount } from "./fixtures.js"

/**
 * Issue 23: list and export cursors over rows in several monthly partitions of tender_scores and
 * its default partition (migration 0024), with rescoring between pages: a company rescore, a change
 * notice that moves a tender to another month's partition, a new tender. Every page sequence is
 * exactly page 1's snapshot.
 */

const TITLES = [
  "Furnizare mobilier școlar pentru grădinițe",
  "Mobilier școlar: bănci și scaune pentru elevi",
  "Dotare cu mobilier a laboratoarelor școlare",
  "Mese și scaune pentru cantina școlii",
  "Mobilier de birou pentru primărie",
  "Dulapuri metalice pentru vestiare",
  "Mobilier pentru biblioteca județeană",
  "Paturi și mobilier pentru internat"
]
/** 2026-09-20 (the default partition: September has none) to 2026-12-16. */
const FIRST_DAY = Date.UTC(2026, 8, 20, 8)
const DAY = 86_400_000
const EXPORT_RANGE = { from: "2026-09-18", to: "2026-12-16" }

let counter = 0
const tender = (publishDate: Date): Tender => {
  const title = TITLES[counter % TITLES.length]!
  return {
    source: "partitions",
    sourceNoticeId: `P-${++counter}-${randomUUID().slice(0, 8)}`,
    noticeType: "contract",
    title,
    description: `${title}. Livrare și montaj.`,
    mainCpv: "39160000-1",
    additionalCpvs: [],
    authority: { name: "Primăria Test", normalizedName: "primaria test", fiscalCode: null, county: "Cluj" },
    deadline: null,
    estimatedValueRon: 100_000 + counter * 1_000,
    estimatedValueEur: null,
    publishDate,
    sourceUrl: "https://e-licitatie.ro/notice/x",
    winnerFiscalCodes: []
  }
}

describe("cursors across score partitions", () => {
  let server: TestServer
  let account: Account

  const sqlRun = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    server.run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))
  const scoring = <A>(f: (s: typeof ScoringService.Service) => Effect.Effect<A>) =>
    server.run(Effect.flatMap(ScoringService, f))
  const importAndScore = async (tenders: ReadonlyArray<Tender>) => {
    const ids = await server.run(
      Effect.map(TenderStore.pipe(Effect.flatMap((s) => s.upsert(tenders))), (r) => r.inserted)
    )
    await scoring((s) => s.scoreTenders(ids, { isNew: ids }))
    return ids
  }

  const get = async (path: string, params: Record<string, string | number>) => {
    const res = await request(api(server, path, { companyId: account.companyId, ...params }), { token: account.key })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as {
      data: Array<{ tender_id: string; score?: number; overall_score?: number }>
      meta: { next_cursor: string | null }
    }
  }
  const list = (params: Record<string, string | number>) => get("/api/v1/tenders", params)
  const exportPage = (params: Record<string, string | number>) =>
    get("/api/v1/export/tenders", { ...EXPORT_RANGE, ...params })
  const keyOf = (d: { tender_id: string; score?: number; overall_score?: number }) =>
    `${d.tender_id}:${d.score ?? d.overall_score}`

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 100_000, exportPerHour: 100_000 } })
    account = await createAccount(server, { credits: 1_000_000 })
    // October to December have their partitions whatever month the test database was made in.
    await sqlRun((sql) => sql`SELECT score_partitions_ensure('2026-10-01', '2026-12-01')`)
    await sqlRun(
      (sql) =>
        sql`UPDATE companies SET description = 'Mobilier școlar, bănci, scaune și catedre' WHERE id = ${account.companyId}`
    )
    await sqlRun(
      (sql) => sql`
        INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score)
        VALUES (${account.tenantId}, ${account.companyId}, 'Mobilier', '{39160000-1}', '{mobilier}', 0)`
    )
  }, 60_000)
  afterAll(() => server.close())

  it("list and export pages give every row of page 1's snapshot exactly once", async () => {
    // 30 tenders, one every 3 days: September (default partition), October, November, December.
    const ids = await importAndScore(Array.from({ length: 30 }, (_, i) => tender(new Date(FIRST_DAY + i * 3 * DAY))))
    const partitions = await sqlRun(
      (sql) => sql<{ partition: string }>`
        SELECT DISTINCT tableoid::regclass::text AS partition FROM tender_scores WHERE company_id = ${account.companyId}
        ORDER BY 1`
    )
    expect(partitions.map((p) => p.partition)).toEqual([
      "tender_scores_default",
      "tender_scores_p2026_10",
      "tender_scores_p2026_11",
      "tender_scores_p2026_12"
    ])

    // Page 1 of each, and what they must add up to (the whole result at that moment).
    const listSnapshot = (await list({ limit: 100 })).data.map(keyOf)
    const exportSnapshot = (await exportPage({ limit: 1000 })).data.map(keyOf)
    expect(listSnapshot).toHaveLength(30)
    expect(exportSnapshot).toHaveLength(30)
    const listed: Array<string> = []
    const exported: Array<string> = []
    let listCursor: string | null = null
    let exportCursor: string | null = null
    const nextList = async () => {
      const page = await list(listCursor === null ? { limit: 4 } : { limit: 4, cursor: listCursor })
      listed.push(...page.data.map(keyOf))
      listCursor = page.meta.next_cursor
    }
    const nextExport = async () => {
      const page = await exportPage(exportCursor === null ? { limit: 4 } : { limit: 4, cursor: exportCursor })
      exported.push(...page.data.map(keyOf))
      exportCursor = page.meta.next_cursor
    }
    await nextList()
    await nextExport()

    // A change notice moves an October tender to December (another partition), and it is rescored.
    const moved = ids[5]!
    await sqlRun((sql) => sql`UPDATE tenders SET publish_date = '2026-12-10T08:00:00Z' WHERE id = ${moved}`)
    await scoring((s) => s.scoreTenders([moved], { isNew: [], changed: [moved] }))
    await nextList()
    await nextExport()

    // The company is rescored on a new description: scores change across every partition.
    await sqlRun(
      (sql) => sql`
        UPDATE companies SET description = 'Mobilier de birou, dulapuri metalice, paturi pentru internat'
        WHERE id = ${account.companyId}`
    )
    await scoring((s) => s.rescoreCompany(account.companyId))
    await nextList()
    await nextExport()

    // A new tender arrives in November and is scored.
    await importAndScore([tender(new Date(Date.UTC(2026, 10, 15, 9)))])

    while (listCursor !== null) await nextList()
    while (exportCursor !== null) await nextExport()
    expect(listed).toEqual(listSnapshot)
    expect(exported).toEqual(exportSnapshot)
    // The rescoring did change what a new pagination sees.
    const now = (await list({ limit: 100 })).data.map(keyOf)
    expect(now).toHaveLength(31)
    expect(now).not.toEqual(listSnapshot)
  })
})
