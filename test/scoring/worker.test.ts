import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { RescoreCompany, ScoreTenders } from "../../src/infra/scoring/ScoringJobKinds.js"
import { jobHandlers } from "../../src/workers/handlers.js"
import { WorkerLive } from "../../src/workers/Worker.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = WorkerLive({ handlers: jobHandlers, pollEvery: "200 millis" }).pipe(
  Layer.provideMerge(RepositoriesLive),
  Layer.provideMerge(TestDatabaseLive)
)

describe("scoring jobs in the worker", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("tenders.score and company.rescore jobs run through the worker's handlers", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const queue = yield* JobQueue
        const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`
        const [company] = yield* sql<{ id: string }>`
          INSERT INTO companies (tenant_id, name, description) VALUES (${tenant!.id}, 'C', 'Mobilier școlar') RETURNING id`
        yield* sql`INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, min_score)
                   VALUES (${tenant!.id}, ${company!.id}, 'W', '{39160000-1}', 0)`
        const [authority] = yield* sql<{ id: string }>`
          INSERT INTO contracting_authorities (name, normalized_name, fiscal_code) VALUES ('Școala 1', 'scoala 1', '1234567')
          RETURNING id`
        const [tender] = yield* sql<{ id: string }>`
          INSERT INTO tenders (source, source_notice_id, title, main_cpv, authority_id, publish_date)
          VALUES ('test', 'w1', 'Furnizare mobilier școlar', '39160000-1', ${authority!.id}, now()) RETURNING id`

        const waitFor = <A>(check: Effect.Effect<A | undefined>) =>
          check.pipe(
            Effect.flatMap((value) => (value === undefined ? Effect.fail("not yet" as const) : Effect.succeed(value))),
            Effect.retry(Schedule.spaced("100 millis").pipe(Schedule.upTo("15 seconds"))),
            Effect.orDie
          )
        const alertCount = sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM alerts WHERE tender_id = ${tender!.id}`.pipe(
          Effect.map((rows) => (rows[0]!.n > 0 ? rows[0]!.n : undefined)),
          Effect.orDie
        )

        yield* queue.enqueue(ScoreTenders, { tenderIds: [tender!.id], isNew: [tender!.id] })
        expect(yield* waitFor(alertCount)).toBe(1)
        const [before] = yield* sql<{ semantic: number }>`
          SELECT score_semantic::float8 AS semantic FROM tender_scores WHERE tender_id = ${tender!.id}`

        yield* sql`UPDATE companies SET description = 'Servicii de curățenie' WHERE id = ${company!.id}`
        yield* queue.enqueue(RescoreCompany, { companyId: company!.id })
        const after = yield* waitFor(
          sql<{ semantic: number }>`
            SELECT score_semantic::float8 AS semantic FROM tender_scores WHERE tender_id = ${tender!.id}`.pipe(
            Effect.map((rows) => (rows[0]!.semantic < before!.semantic ? rows[0]! : undefined)),
            Effect.orDie
          )
        )
        expect(after.semantic).toBe(0)
      })
    )
  })
})
