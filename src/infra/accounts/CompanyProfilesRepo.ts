import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { CompanyNotFound } from "../../domain/Errors.js"
import { JobQueue, JobQueueLive } from "../jobs/JobQueue.js"
import { RESCORE_JOB } from "./WatchlistsRepo.js"

/** Companies as the browser app shows and edits them (the multi-client workspace). */

export interface CompanyProfile {
  readonly id: string
  readonly name: string
  readonly description: string
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
    /** Changes the given fields; a changed description queues `company.rescore`. */
    readonly update: (input: {
      readonly tenantId: string
      readonly id: string
      readonly name?: string
      readonly description?: string
    }) => Effect.Effect<CompanyDetail, CompanyNotFound>
  }
>() {}

interface CompanyRow {
  readonly id: string
  readonly name: string
  readonly description: string
  readonly active: boolean
  readonly created_at: Date
}

const toProfile = (row: CompanyRow): CompanyProfile => ({
  id: row.id,
  name: row.name,
  description: row.description,
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
        SELECT c.id, c.name, c.description, c.active, c.created_at,
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
        SELECT id, name, description, active, created_at FROM companies
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId}`.pipe(
        Effect.orDie,
        Effect.flatMap((rows) =>
          Option.match(Option.fromNullable(rows[0]), {
            onNone: () => Effect.fail(new CompanyNotFound({ id: input.id })),
            onSome: (row) => Effect.orDie(detail(row))
          })
        )
      )

    const update = (input: {
      readonly tenantId: string
      readonly id: string
      readonly name?: string
      readonly description?: string
    }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [before] = yield* sql<{ description: string }>`
              SELECT description FROM companies WHERE id = ${input.id} AND tenant_id = ${input.tenantId} FOR UPDATE`
            if (before === undefined) return yield* new CompanyNotFound({ id: input.id })
            const [row] = yield* sql<CompanyRow>`
              UPDATE companies SET
                name = coalesce(${input.name ?? null}, name),
                description = coalesce(${input.description ?? null}, description),
                updated_at = now()
              WHERE id = ${input.id}
              RETURNING id, name, description, active, created_at`
            if (input.description !== undefined && input.description !== before.description)
              yield* jobs.enqueue(RESCORE_JOB, { companyId: input.id })
            return yield* detail(row!)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    return { list, get, update }
  })
).pipe(Layer.provide(JobQueueLive))
