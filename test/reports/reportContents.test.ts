import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ReportData } from "../../src/domain/reports/ReportData.js"
import { ReportContents, ReportContentsLive } from "../../src/infra/reports/ReportContents.js"
import { type Account, addScoredTenders, createAccount } from "../api/fixtures.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/** What a report reads from the scores, on a real database (the template's tests take it from there). */
describe("report contents", () => {
  let server: TestServer
  let account: Account
  let ids: Array<string>

  beforeAll(async () => {
    server = await startTestServer()
    account = await createAccount(server)
    ids = await addScoredTenders(server, account, [
      { title: "Asfaltare DJ 107", score: 91, publishDate: "2026-11-05T09:00:00Z", deadline: "2027-01-15T10:00:00Z" },
      { title: "Modernizare străzi", score: 64, publishDate: "2026-11-10T09:00:00Z", deadline: "2027-01-15T10:00:00Z" }
    ])
    // The first procedure was cancelled (as ingestion records it); its deadline is still to come.
    await server.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE tenders SET cancelled_at = now() WHERE id = ${ids[0]!}`
      ).pipe(Effect.orDie)
    )
  }, 120_000)
  afterAll(() => server.close())

  it("tells a cancelled procedure from an open one, in the table and the breakdowns", async () => {
    const data = await server.run(
      Effect.flatMap(ReportContents, (contents) =>
        contents.load({
          companyId: account.companyId,
          params: { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 0, watchlist_id: null }
        })
      ).pipe(Effect.provide(ReportContentsLive))
    )
    expect(data.tenders.map((t) => [t.tenderId, t.cancelled])).toEqual([
      [ids[0], true],
      [ids[1], false]
    ])
    expect(data.breakdowns.map((b) => [b.tenderId, b.cancelled])).toEqual([
      [ids[0], true],
      [ids[1], false]
    ])
  })

  it("reads the summary and the table from one snapshot: a rescore committed between them shows in neither", async () => {
    const owner = await createAccount(server)
    const [best, other] = await addScoredTenders(server, owner, [
      { score: 91, publishDate: "2026-11-05T09:00:00Z" },
      { score: 30, publishDate: "2026-11-10T09:00:00Z" }
    ])
    // The table's statement also reads the authorities, the summary's does not: a lock on them holds
    // the report between its two reads while the rescore commits.
    const holder = new pg.Client({ connectionString: server.databaseUrl })
    await holder.connect()
    let data: ReportData | undefined
    try {
      await holder.query("BEGIN")
      await holder.query("LOCK TABLE contracting_authorities IN ACCESS EXCLUSIVE MODE")
      const loading = server
        .run(
          Effect.flatMap(ReportContents, (contents) =>
            contents.load({
              companyId: owner.companyId,
              params: { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 0, watchlist_id: null }
            })
          ).pipe(Effect.provide(ReportContentsLive))
        )
        .then((loaded) => {
          data = loaded
        })
      const waiting = async () =>
        (
          await holder.query(`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                              WHERE c.relname = 'contracting_authorities' AND NOT l.granted`)
        ).rows[0].n > 0
      for (let waited = 0; !(await waiting()); waited += 20) {
        if (waited > 10_000) throw new Error("the report never waited on the authorities")
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await server.run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE tender_scores SET overall_score = 95, verdict = 'GO'
                       WHERE company_id = ${owner.companyId} AND tender_id = ${other!}`
        ).pipe(Effect.orDie)
      )
      await holder.query("COMMIT")
      await loading
    } finally {
      await holder.query("ROLLBACK").catch(() => undefined)
      await holder.end()
    }
    const report = data!
    const listed = report.tenders.map((t) => [t.tenderId, t.score])
    const go = report.tenders.filter((t) => t.verdict === "GO").length
    const average = report.tenders.reduce((sum, t) => sum + t.score, 0) / report.tenders.length
    expect({ listed, go, average }).toEqual({
      listed: [
        [best, 91],
        [other, 30]
      ],
      go: report.verdictCounts.GO,
      average: report.averageScore
    })
  })
})
