import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
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
})
