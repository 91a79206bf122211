import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { scoreLifecycleRound } from "../../src/workers/ScoreLifecycle.js"
import { type Account, addScoredTenders, api, createAccount } from "../api/fixtures.js"
import { request } from "../support/http.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

/**
 * The lifecycle round's table locks and the key API (MaintenanceLocks): creating or dropping a
 * monthly partition takes ACCESS EXCLUSIVE on the parent `tender_scores`. While that request waits
 * for a transaction in flight on the table (a scoring batch, an export page), every later statement
 * on the table queues behind it, list pages included. The round waits briefly, gives way and tries
 * again: a list page asked meanwhile answers while the other transaction is still open.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("the lifecycle round's lock waits", () => {
  let server: TestServer
  let account: Account
  const sqlRun = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    server.run(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie))

  beforeAll(async () => {
    server = await startTestServer({ rateLimits: { generalPerMinute: 100_000 } })
    account = await createAccount(server, { credits: 1_000_000 })
    await addScoredTenders(server, account, [{ score: 80, publishDate: "2026-11-20T08:00:00Z", deadline: null }])
  }, 60_000)
  afterAll(() => server.close())

  /** A transaction in flight on tender_scores (a scoring batch's, an export's), open until `end`. */
  const openTransactionOnScores = async () => {
    const client = new pg.Client({ connectionString: server.databaseUrl })
    await client.connect()
    await client.query("BEGIN")
    await client.query("SELECT count(*) FROM tender_scores")
    return {
      end: async () => {
        await client.query("COMMIT")
        await client.end()
      }
    }
  }

  /** Until a statement of the round waits for a table lock. */
  const roundWaitsForLock = async () => {
    const until = Date.now() + 20_000
    while (Date.now() < until) {
      const [row] = await sqlRun(
        (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
                                   WHERE d.datname = current_database() AND NOT l.granted`
      )
      if (row!.n > 0) return
      await pause(10)
    }
    throw new Error("the round never waited for a lock")
  }

  /**
   * Asks for a list page while the round waits for its lock; the other transaction ends once the page
   * answered, or after 3 s if it does not. Returns which came first.
   */
  const listWhileTheRoundWaits = async () => {
    const transaction = await openTransactionOnScores()
    const round = server.run(scoreLifecycleRound)
    await roundWaitsForLock()
    const list = request(api(server, "/api/v1/tenders", { companyId: account.companyId, limit: 5 }), {
      token: account.key
    })
    const first = await Promise.race([list.then(() => "list page"), pause(3_000).then(() => "other transaction")])
    await transaction.end()
    expect((await list).status).toBe(200)
    return { first, round: await round }
  }

  it("dropping an expired month: a list page answers while another transaction holds the table", async () => {
    await addScoredTenders(server, account, [
      { score: 70, publishDate: "2025-03-05T08:00:00Z", deadline: "2025-04-01T12:00:00Z" }
    ])
    await sqlRun((sql) => sql`SELECT score_partitions_ensure('2025-03-01', '2025-03-01')`)
    const { first, round } = await listWhileTheRoundWaits()
    expect(first, "the list page waited for the other transaction to end").toBe("list page")
    // Once the other transaction ended, the round's next attempt dropped the month.
    expect(round.partitionsDropped).toContain("tender_scores_p2025_03")
  }, 60_000)

  it("creating a month's partition: a list page answers while another transaction holds the table", async () => {
    // The furthest month ahead is missing (as on the first round after a month boundary): the round creates it.
    const [{ name }] = (await sqlRun(
      (sql) => sql<{ name: string }>`
        SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'tender_scores'::regclass AND c.relname LIKE 'tender_scores_p%'
        ORDER BY c.relname DESC LIMIT 1`
    )) as ReadonlyArray<{ name: string }> as [{ name: string }]
    await sqlRun((sql) => sql`DROP TABLE ${sql(name)}`)
    const { first, round } = await listWhileTheRoundWaits()
    expect(first, "the list page waited for the other transaction to end").toBe("list page")
    expect(round.created).toBeGreaterThan(0)
    const [exists] = await sqlRun((sql) => sql<{ exists: boolean }>`SELECT to_regclass(${name}) IS NOT NULL AS exists`)
    expect(exists!.exists).toBe(true)
  }, 60_000)
})
