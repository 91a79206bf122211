import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { CompanyNotFound } from "../../domain/Errors.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { RescoreCompany } from "../scoring/ScoringJobKinds.js"

/** Companies as the browser app shows and edits them (the multi-client workspace). */

export interface CompanyProfile {
  readonly id: string
  readonly name: string
  readonly description: string
  /** Digits of the Romanian fiscal code, or null. */
  readonly fiscalCode: string | null
  readonly active: boolean
  readonly createdAt: Date
}

export interface CompanyListItem extends CompanyProfile {
  /** Active (not deleted) watchlists of the company. */
  readonly watchlistCount: number
}

export interface CompanyDetail extends CompanyProfile {
  readonly watchlists: ReadonlyArray<{ readonly id: string; readonly name: string; readonly active: boolean }>
}

export class CompanyProfilesRepo extends Context.Tag("CompanyProfilesRepo")<
  CompanyProfilesRepo,
  {
    readonly list: (tenantId: string) => Effect.Effect<ReadonlyArray<CompanyListItem>>
    readonly get: (input: {
      readonly tenantId: string
      readonly id: string
    }) => Effect.Effect<CompanyDetail, CompanyNotFound>
    /** Adds a company to the tenant and queues its first `company.rescore`. */
    readonly create: (input: {
      readonly tenantId: string
      readonly name: string
      readonly description: string
      readonly fiscalCode: string | null
    }) => Effect.Effect<CompanyDetail>
    /**
     * Changes the given fields (`fiscalCode: null` clears it). A changed description or fiscal code,
     * or a reactivation, queues `company.rescore` (an inactive company is not scored).
     */
    readonly update: (input: CompanyChanges) => Effect.Effect<CompanyDetail, CompanyNotFound>
  }
>() {}

export interface CompanyChanges {
  readonly tenantId: string
  readonly id: string
  readonly name?: string
  readonly description?: string
  readonly fiscalCode?: string | null
  readonly active?: boolean
}

interface CompanyRow {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly fiscal_code: string | null
  readonly active: boolean
  readonly created_at: Date
}

const toProfile = (row: CompanyRow): CompanyProfile => ({
  id: row.id,
  name: row.name,
  description: row.description,
  fiscalCode: row.fiscal_code,
  active: row.active,
  createdAt: row.created_at
})

export const CompanyProfilesRepoLive = Layer.effect(
  CompanyProfilesRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue

    const list = (tenantId: string) =>
      sql<CompanyRow & { watchlist_count: number }>`
        SELECT c.id, c.name, c.description, c.fiscal_code, c.active, c.created_at,
               (SELECT count(*)::int FROM watchlists w WHERE w.company_id = c.id AND w.deleted_at IS NULL)
                 AS watchlist_count
        FROM companies c WHERE c.tenant_id = ${tenantId}
        ORDER BY c.created_at, c.id`.pipe(
        Effect.map((rows) => rows.map((row) => ({ ...toProfile(row), watchlistCount: row.watchlist_count }))),
        Effect.orDie
      )

    const detail = (row: CompanyRow) =>
      sql<{ id: string; name: string; active: boolean }>`
        SELECT id, name, active FROM watchlists WHERE company_id = ${row.id} AND deleted_at IS NULL
        ORDER BY created_at, id`.pipe(Effect.map((watchlists): CompanyDetail => ({ ...toProfile(row), watchlists })))

    const get = (input: { readonly tenantId: string; readonly id: string }) =>
      sql<CompanyRow>`
        SELECT id, name, description, fiscal_code, active, created_at FROM companies
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          Option.match(Option.fromNullable(rows[0]), {
            onNone: () => Effect.fail(new CompanyNotFound({ id: input.id })),
            onSome: (row) => Effect.orDie(detail(row))
          })
        )
      )

    const create = (input: {
      readonly tenantId: string
      readonly name: string
      readonly description: string
      readonly fiscalCode: string | null
    }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql<CompanyRow>`
              INSERT INTO companies (tenant_id, name, description, fiscal_code)
              VALUES (${input.tenantId}, ${input.name}, ${input.description}, ${input.fiscalCode})
              RETURNING id, name, description, fiscal_code, active, created_at`
            yield* jobs.enqueue(RescoreCompany, { companyId: row!.id })
            return { ...toProfile(row!), watchlists: [] }
          })
        )
        .pipe(Effect.orDie)

    const update = (input: CompanyChanges) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [before] = yield* sql<{ description: string; fiscal_code: string | null; active: boolean }>`
              SELECT description, fiscal_code, active FROM companies
              WHERE id = ${input.id} AND tenant_id = ${input.tenantId} FOR UPDATE`
            if (before === undefined) return yield* new CompanyNotFound({ id: input.id })
            const fiscalCode = input.fiscalCode === undefined ? before.fiscal_code : input.fiscalCode
            const [row] = yield* sql<CompanyRow>`
              UPDATE companies SET
                name = coalesce(${input.name ?? null}, name),
                description = coalesce(${input.description ?? null}, description),
                fiscal_code = ${fiscalCode},
                active = coalesce(${input.active ?? null}::boolean, active),
                updated_at = now()
              WHERE id = ${input.id}
              RETURNING id, name, description, fiscal_code, active, created_at`
            const rescore =
              row!.active &&
              (row!.description !== before.description || row!.fiscal_code !== before.fiscal_code || !before.active)
            if (rescore) yield* jobs.enqueue(RescoreCompany, { companyId: input.id })
            return yield* detail(row!)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    return { list, get, create, update }
  })
).pipe(Layer.provide(JobQueueLive))
