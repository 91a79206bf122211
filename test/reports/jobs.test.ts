import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Exit, Layer, Option, TestClock } from "effect"
import { DOWNLOAD_TOKEN_TTL, hashDownloadToken } from "../../src/domain/reports/DownloadToken.js"
import { REPORT_IDEMPOTENCY_WINDOW } from "../../src/domain/reports/IdempotencyKeyRules.js"
import { REPORT_RETENTION } from "../../src/domain/reports/ReportJob.js"
import { CreditLedger } from "../../src/infra/billing/CreditLedger.js"
import { Metrics } from "../../src/infra/metrics/Metrics.js"
import { type Job, JobQueue } from "../../src/infra/queue/JobQueue.js"
import { drainDueJobs, handle } from "../../src/infra/queue/JobRunner.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { DownloadTokens, DownloadTokensLive } from "../../src/infra/reports/DownloadTokens.js"
import { ReportIdempotencyKeys, ReportIdempotencyKeysLive } from "../../src/infra/reports/ReportIdempotencyKeys.js"
import { RenderReport, ReportJobsRepo, ReportJobsRepoLive } from "../../src/infra/reports/ReportJobsRepo.js"
import { DatabaseReportStorageLive, ReportStorage } from "../../src/infra/reports/ReportStorage.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** The report queue, credits and download tokens on a real database, with times on the TestClock. */
const TestLayer = Layer.mergeAll(ReportJobsRepoLive, DownloadTokensLive, ReportIdempotencyKeysLive).pipe(
  Layer.provideMerge(DatabaseReportStorageLive),
  Layer.provideMerge(RepositoriesLive),
  Layer.provideMerge(TestDatabaseLive)
)

const PARAMS = { date_from: "2026-11-01", date_to: "2026-11-30", min_score: 0, watchlist_id: null }
const PDF = new Uint8Array(Buffer.from("%PDF-1.4 test"))

/** A tenant with a balance, on an empty queue (the tests of this block share one database). */
const tenantWithCredits = (credits: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM report_jobs`
    yield* sql`DELETE FROM jobs WHERE kind = ${RenderReport.name}`
    const [tenant] = yield* sql<{
      id: string
    }>`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`
    const [company] = yield* sql<{ id: string }>`
      INSERT INTO companies (tenant_id, name) VALUES (${tenant!.id}, 'C') RETURNING id`
    yield* (yield* CreditLedger).set({ tenantId: tenant!.id, remaining: credits, reason: "test" })
    return { tenantId: tenant!.id, companyId: company!.id }
  }).pipe(Effect.orDie)

const ledgerKinds = (tenantId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ kind: string; delta: number; balance_after: number }>`
      SELECT kind, delta, balance_after FROM credit_ledger
      WHERE tenant_id = ${tenantId} AND kind <> 'grant' AND kind <> 'adjustment' ORDER BY id`
  ).pipe(Effect.orDie)

const statusOf = (jobId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ status: string; attempts: number; credits_held: number }>`
      SELECT r.status, j.attempts, r.credits_held FROM report_jobs r
      JOIN jobs j ON j.kind = ${RenderReport.name} AND j.payload ->> 'reportId' = r.id::text
      WHERE r.id = ${jobId}`
  ).pipe(
    Effect.map((rows) => rows[0]!),
    Effect.orDie
  )

/** Claims due report jobs as a worker does, each report marked `generating`. */
const claimOne = (workerId: string, lease: Duration.DurationInput = Duration.seconds(30)) =>
  Effect.gen(function* () {
    const { jobs } = yield* (yield* JobQueue).claim({ kinds: [RenderReport.name], workerId, limit: 10, lease })
    for (const job of jobs) yield* (yield* ReportJobsRepo).start(reportOf(job))
    return jobs
  })

const reportOf = (job: Job) => (job.payload as { reportId: string }).reportId

describe("report jobs: credits held, leases and retries on the clock", () => {
  layer(TestLayer)((it) => {
    it.effect("creation holds 10 credits; completion charges them once; the PDF is stored with it", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const account = yield* tenantWithCredits(25)
        const job = yield* repo.create({ ...account, params: PARAMS })
        expect(job.remaining).toBe(15)
        const [claimed] = yield* claimOne("w1")
        expect(reportOf(claimed!)).toBe(job.id)
        expect(yield* repo.complete(claimed!, reportOf(claimed!), PDF)).toBe("completed")
        expect(yield* statusOf(job.id)).toEqual({ status: "completed", attempts: 1, credits_held: 0 })
        expect((yield* (yield* CreditLedger).balance(account.tenantId)).remaining).toBe(15)
        expect(yield* ledgerKinds(account.tenantId)).toEqual([
          { kind: "hold", delta: -10, balance_after: 15 },
          { kind: "release", delta: 10, balance_after: 25 },
          { kind: "charge", delta: -10, balance_after: 15 }
        ])
        const stored = yield* (yield* ReportStorage).get(job.id)
        expect(Option.map(stored, (bytes) => Buffer.from(bytes).toString())).toEqual(Option.some("%PDF-1.4 test"))
        // A second completion (a duplicate attempt) changes nothing.
        expect(yield* repo.complete(claimed!, reportOf(claimed!), PDF)).toBe("lost")
        expect((yield* (yield* CreditLedger).balance(account.tenantId)).remaining).toBe(15)
      })
    )

    it.effect(
      "credits_charged_total counts a report's charge once its transaction committed, never one rolled back",
      () =>
        Effect.gen(function* () {
          const repo = yield* ReportJobsRepo
          const sql = yield* SqlClient.SqlClient
          // The process's registry, what /metrics (METRICS_PORT) serves.
          const metrics = yield* Metrics
          const counted = Effect.promise(() => metrics.creditsCharged.get()).pipe(
            Effect.map((metric) => metric.values[0]?.value ?? 0)
          )
          const account = yield* tenantWithCredits(25)
          const job = yield* repo.create({ ...account, params: PARAMS })
          const [claimed] = yield* claimOne("w1")
          const before = yield* counted
          // The completion's transaction fails at its commit: a deferred check refuses the ledger's charge row.
          yield* sql`
          CREATE FUNCTION refuse_report_charge() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN RAISE EXCEPTION 'charge refused at commit'; END $$`
          yield* sql`
          CREATE CONSTRAINT TRIGGER refuse_report_charge AFTER INSERT ON credit_ledger
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.kind = 'charge')
          EXECUTE FUNCTION refuse_report_charge()`
          const failed = yield* Effect.exit(repo.complete(claimed!, job.id, PDF))
          yield* sql`DROP TRIGGER refuse_report_charge ON credit_ledger`
          yield* sql`DROP FUNCTION refuse_report_charge()`
          expect(Exit.isFailure(failed)).toBe(true)
          // Rolled back whole: the report still generating with its hold, no charge in the ledger, none counted.
          expect(yield* statusOf(job.id)).toMatchObject({ status: "generating", credits_held: 10 })
          expect(yield* ledgerKinds(account.tenantId)).toEqual([{ kind: "hold", delta: -10, balance_after: 15 }])
          expect(yield* counted).toBe(before)
          // The attempt again, committed: counted once.
          expect(yield* repo.complete(claimed!, job.id, PDF)).toBe("completed")
          expect(yield* counted).toBe(before + 10)
        }).pipe(Effect.orDie)
    )

    it.effect("a balance below 10 is refused with the balance; holds count against later creations", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const account = yield* tenantWithCredits(25)
        yield* repo.create({ ...account, params: PARAMS })
        yield* repo.create({ ...account, params: PARAMS })
        const refused = yield* Effect.flip(repo.create({ ...account, params: PARAMS }))
        expect(refused).toMatchObject({ _tag: "InsufficientCredits", remaining: 5, required: 10 })
      })
    )

    it.effect("concurrent creations never hold more than the balance", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const account = yield* tenantWithCredits(35)
        const results = yield* Effect.all(
          Array.from({ length: 12 }, () => Effect.either(repo.create({ ...account, params: PARAMS }))),
          { concurrency: "unbounded" }
        )
        expect(results.filter((r) => r._tag === "Right")).toHaveLength(3)
        expect((yield* (yield* CreditLedger).balance(account.tenantId)).remaining).toBe(5)
      })
    )

    it.effect("a failing job is retried after 2 s and 4 s, then ends failed and its hold is released", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const account = yield* tenantWithCredits(10)
        const job = yield* repo.create({ ...account, params: PARAMS })
        let claimed: Job | undefined
        for (const [attempt, wait] of [
          [1, 0],
          [2, 2000],
          [3, 4000]
        ] as const) {
          if (wait > 0) {
            yield* TestClock.adjust(wait - 1)
            expect(yield* claimOne("w1")).toHaveLength(0)
            yield* TestClock.adjust(1)
          }
          ;[claimed] = yield* claimOne("w1")
          expect(claimed!.attempts).toBe(attempt)
          const outcome = yield* repo.recordFailure(claimed!, job.id, "Chromium crashed")
          expect(outcome).toBe(attempt < 3 ? "retrying" : "failed")
          expect((yield* statusOf(job.id)).status).toBe(attempt < 3 ? "pending" : "failed")
        }
        expect((yield* (yield* CreditLedger).balance(account.tenantId)).remaining).toBe(10)
        expect((yield* ledgerKinds(account.tenantId)).map((r) => r.kind)).toEqual(["hold", "release"])
      })
    )

    it.effect("a dead worker's job goes back to the queue when its lease runs out; its late outcome is dropped", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const account = yield* tenantWithCredits(10)
        const job = yield* repo.create({ ...account, params: PARAMS })
        const [first] = yield* claimOne("dead", Duration.seconds(10))
        yield* TestClock.adjust(Duration.seconds(10))
        const queue = yield* JobQueue
        expect(yield* queue.reap).toBe(0)
        yield* TestClock.adjust(1)
        expect(yield* queue.reap).toBe(1)
        // Back in the queue at once, the report still `generating` until it is taken again.
        expect((yield* statusOf(job.id)).status).toBe("generating")
        const [second] = yield* claimOne("alive")
        expect(second!.attempts).toBe(2)
        expect(yield* repo.complete(first!, reportOf(first!), PDF)).toBe("lost")
        expect(yield* repo.complete(second!, reportOf(second!), PDF)).toBe("completed")
        expect((yield* ledgerKinds(account.tenantId)).map((r) => r.kind)).toEqual(["hold", "release", "charge"])
      })
    )

    it.effect("a job whose workers keep dying ends failed after its attempts, never stuck generating", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const account = yield* tenantWithCredits(10)
        const job = yield* repo.create({ ...account, params: PARAMS })
        const queue = yield* JobQueue
        for (let attempt = 1; attempt <= 3; attempt++) {
          const [claimed] = yield* claimOne(`dies-${attempt}`, Duration.seconds(5))
          expect(claimed!.attempts).toBe(attempt)
          yield* TestClock.adjust(Duration.seconds(6))
          expect(yield* queue.reap).toBe(1)
        }
        // The next worker to claim it finds its attempts used up: dead-lettered unrun, the hold released.
        const never = handle(
          RenderReport,
          () => Effect.die("a job past its attempts must not run"),
          ({ reportId }, _job, error) => repo.recordDead(reportId, error)
        )
        yield* drainDueJobs([never], { name: "t", concurrency: 1, lease: "1 minute", pollEvery: "1 minute" })
        expect(yield* statusOf(job.id)).toEqual({ status: "failed", attempts: 4, credits_held: 0 })
        expect((yield* (yield* CreditLedger).balance(account.tenantId)).remaining).toBe(10)
      })
    )

    it.effect("the retention sweep removes a finished report, its PDF and its tokens 7 days after it finished", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const account = yield* tenantWithCredits(10)
        const job = yield* repo.create({ ...account, params: PARAMS })
        const [claimed] = yield* claimOne("w1")
        yield* repo.complete(claimed!, reportOf(claimed!), PDF)
        yield* (yield* DownloadTokens).issue(job.id)
        const cutoff = (now: number) => new Date(now - Duration.toMillis(REPORT_RETENTION))
        yield* TestClock.adjust(REPORT_RETENTION)
        expect(yield* repo.sweep(cutoff(yield* Effect.clockWith((c) => c.currentTimeMillis)))).toBe(0)
        yield* TestClock.adjust(1)
        expect(yield* repo.sweep(cutoff(yield* Effect.clockWith((c) => c.currentTimeMillis)))).toBe(1)
        expect(Option.isNone(yield* (yield* ReportStorage).get(job.id))).toBe(true)
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT 1 FROM download_tokens WHERE job_id = ${job.id}`).toHaveLength(0)
      })
    )

    it.effect("an idempotency key stands for its job 24 hours on the clock; the sweep's purge then removes it", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const keys = yield* ReportIdempotencyKeys
        const account = yield* tenantWithCredits(35)
        const idempotency = { key: "order-1", fingerprint: "f1" }
        const job = yield* repo.create({ ...account, params: PARAMS, idempotency })
        expect(yield* keys.find(account.tenantId, "order-1")).toEqual(Option.some({ jobId: job.id, fingerprint: "f1" }))
        // A repeat creates and holds nothing: it names the key's job and the fingerprint it was created with.
        const repeat = yield* Effect.flip(
          repo.create({ ...account, params: PARAMS, idempotency: { ...idempotency, fingerprint: "f2" } })
        )
        expect(repeat).toMatchObject({ _tag: "IdempotencyKeyTaken", jobId: job.id, fingerprint: "f1" })
        expect((yield* (yield* CreditLedger).balance(account.tenantId)).remaining).toBe(25)

        yield* TestClock.adjust(Duration.subtract(REPORT_IDEMPOTENCY_WINDOW, Duration.millis(1)))
        expect(Option.isSome(yield* keys.find(account.tenantId, "order-1"))).toBe(true)
        const later = yield* repo.create({
          ...account,
          params: PARAMS,
          idempotency: { key: "order-2", fingerprint: "f" }
        })
        expect(yield* keys.purgeExpired).toBe(0)
        yield* TestClock.adjust(1)
        expect(yield* keys.find(account.tenantId, "order-1")).toEqual(Option.none())
        expect(yield* keys.purgeExpired).toBe(1)
        const sql = yield* SqlClient.SqlClient
        expect(
          yield* sql<{
            key: string
            job_id: string
          }>`SELECT key, job_id FROM report_idempotency_keys WHERE tenant_id = ${account.tenantId}`
        ).toEqual([{ key: "order-2", job_id: later.id }])
        // The key is free again: a new creation with it is a new job.
        const again = yield* repo.create({ ...account, params: PARAMS, idempotency })
        expect(again.id).not.toBe(job.id)
      })
    )

    it.effect("download tokens: 64 characters, stored hashed, valid for 15 minutes on the clock", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const tokens = yield* DownloadTokens
        const account = yield* tenantWithCredits(10)
        const job = yield* repo.create({ ...account, params: PARAMS })
        const issued = yield* tokens.issue(job.id)
        expect(issued.token).toMatch(/^[0-9a-f]{64}$/)
        const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
        expect(issued.expiresAt.getTime()).toBe(now + Duration.toMillis(DOWNLOAD_TOKEN_TTL))
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ token_hash: Buffer }>`SELECT token_hash FROM download_tokens WHERE job_id = ${job.id}`
        expect(rows.map((r) => Buffer.from(r.token_hash).toString("hex"))).toEqual([
          hashDownloadToken(issued.token).toString("hex")
        ])
        yield* TestClock.adjust(Duration.subtract(DOWNLOAD_TOKEN_TTL, Duration.millis(1)))
        expect(yield* tokens.redeem(issued.token, Effect.succeedSome)).toEqual(Option.some(job.id))
        yield* TestClock.adjust(1)
        expect(yield* tokens.redeem(issued.token, Effect.succeedSome)).toEqual(Option.none())
      })
    )

    it.effect("download tokens: at most 3 downloads, counted atomically", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const tokens = yield* DownloadTokens
        const account = yield* tenantWithCredits(10)
        const job = yield* repo.create({ ...account, params: PARAMS })
        const { token } = yield* tokens.issue(job.id)
        const results = yield* Effect.all(
          Array.from({ length: 20 }, () => tokens.redeem(token, Effect.succeedSome)),
          { concurrency: "unbounded" }
        )
        expect(results.filter(Option.isSome)).toHaveLength(3)
        expect(yield* tokens.redeem("f".repeat(64), Effect.succeedSome)).toEqual(Option.none())
        expect(yield* tokens.redeem("not a token", Effect.succeedSome)).toEqual(Option.none())
      })
    )

    it.effect("download tokens: a download whose read finds nothing or dies uses none of the 3", () =>
      Effect.gen(function* () {
        const repo = yield* ReportJobsRepo
        const tokens = yield* DownloadTokens
        const account = yield* tenantWithCredits(10)
        const job = yield* repo.create({ ...account, params: PARAMS })
        const { token } = yield* tokens.issue(job.id)
        expect(yield* tokens.redeem(token, () => Effect.succeedNone)).toEqual(Option.none())
        const died = yield* Effect.exit(tokens.redeem(token, () => Effect.die("storage unreachable")))
        expect(died._tag).toBe("Failure")
        const downloads = Array.from({ length: 4 }, () => tokens.redeem(token, Effect.succeedSome))
        expect((yield* Effect.all(downloads)).filter(Option.isSome)).toHaveLength(3)
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT downloads FROM download_tokens WHERE job_id = ${job.id}`).toEqual([{ downloads: 3 }])
      })
    )
  })
})
