import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { CompaniesRepo } from "../../src/infra/accounts/CompaniesRepo.js"
import { CompanyProfilesRepo } from "../../src/infra/accounts/CompanyProfilesRepo.js"
import { JobQueue } from "../../src/infra/queue/JobQueue.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { RescoreCompany } from "../../src/infra/scoring/ScoringJobKinds.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

const TestLayer = RepositoriesLive.pipe(Layer.provideMerge(TestDatabaseLive))

/**
 * A rescore reads the company when it starts, so one still queued covers every change saved before
 * its claim: queued again for each, the company's open tenders were scored once per save (and, with
 * the scoring runner's 4 slots, at the same time, writing the same rows).
 */
describe("the rescores that a company's changes queue", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    const rescores = (companyId: string) =>
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ status: string }>`
          SELECT status FROM jobs WHERE kind = 'company.rescore' AND payload->>'companyId' = ${companyId}
          ORDER BY id`
      ).pipe(Effect.map((rows) => rows.map((row) => row.status)))

    it.effect("saves before its rescore starts leave one queued; a save while it runs queues the next", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const profiles = yield* CompanyProfilesRepo
        const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`
        const tenantId = tenant!.id
        const { id } = yield* profiles.create({ tenantId, name: "C", description: "Mobilier", fiscalCode: null })
        for (const description of ["Mobilier școlar", "Mobilier școlar și de birou", "Mobilier școlar, birou, bănci"]) {
          yield* profiles.update({ tenantId, id, description })
        }
        // The CLI's path (`company update`) joins it too.
        yield* (yield* CompaniesRepo).update({ id, description: "Mobilier de birou" })
        expect(yield* rescores(id)).toEqual(["queued"])

        // Claimed, it may have read the company before the next save: that save queues another.
        const { jobs } = yield* (yield* JobQueue).claim({
          kinds: [RescoreCompany.name],
          workerId: "w",
          limit: 10,
          lease: "1 minute"
        })
        expect(jobs).toHaveLength(1)
        yield* profiles.update({ tenantId, id, description: "Bănci școlare" })
        yield* profiles.update({ tenantId, id, counties: ["Cluj"] })
        expect(yield* rescores(id)).toEqual(["running", "queued"])
      })
    )

    it.effect("two saves at once leave one rescore queued", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const profiles = yield* CompanyProfilesRepo
        const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`
        const tenantId = tenant!.id
        const { id } = yield* profiles.create({ tenantId, name: "C", description: "Mobilier", fiscalCode: null })
        yield* sql`DELETE FROM jobs WHERE kind = 'company.rescore' AND payload->>'companyId' = ${id}`
        yield* Effect.all(
          [
            profiles.update({ tenantId, id, description: "Mobilier școlar" }),
            profiles.update({ tenantId, id, fiscalCode: "22505268" })
          ],
          { concurrency: 2 }
        )
        expect(yield* rescores(id)).toEqual(["queued"])
      })
    )
  })
})
