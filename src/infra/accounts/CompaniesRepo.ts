import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { CompanyNotFound, TenantNotFound } from "../../domain/Errors.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { RescoreCompany, rescoreOnce } from "../scoring/ScoringJobKinds.js"

export interface Company {
  readonly id: string
  readonly tenantId: string
  readonly name: string
  readonly description: string
  readonly fiscalCode: string | null
  /** The counties it works in, as set; empty when not set (scoring then infers them). */
  readonly counties: ReadonlyArray<string>
  readonly active: boolean
  readonly createdAt: Date
}

const CompanyRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  fiscal_code: Schema.NullOr(Schema.String),
  counties: Schema.NullOr(Schema.Array(Schema.String)),
  active: Schema.Boolean,
  created_at: Schema.DateFromSelf
})

const toCompany = (row: typeof CompanyRow.Type): Company => ({
  id: row.id,
  tenantId: row.tenant_id,
  name: row.name,
  description: row.description,
  fiscalCode: row.fiscal_code,
  counties: row.counties ?? [],
  active: row.active,
  createdAt: row.created_at
})

/**
 * Companies as the operator creates and edits them (CLI). Creating a company, or changing its
 * description or fiscal code, queues `company.rescore` in the same transaction: its open tenders
 * are scored from the new profile by the worker, without alerts.
 */
export class CompaniesRepo extends Context.Tag("CompaniesRepo")<
  CompaniesRepo,
  {
    readonly create: (input: {
      readonly tenantId: string
      readonly name: string
      readonly description: string
      readonly fiscalCode: string | null
    }) => Effect.Effect<Company, TenantNotFound>
    /** Changes the given fields (`fiscalCode: null` removes it). */
    readonly update: (input: {
      readonly id: string
      readonly name?: string
      readonly description?: string
      readonly fiscalCode?: string | null
      /** The counties the company works in (canonical names); empty clears them (then inferred). */
      readonly counties?: ReadonlyArray<string>
    }) => Effect.Effect<Company, CompanyNotFound>
  }
>() {}

export const CompaniesRepoLive = Layer.effect(
  CompaniesRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue
    const insertCompany = SqlSchema.findAll({
      Request: Schema.Struct({
        tenantId: Schema.String,
        name: Schema.String,
        description: Schema.String,
        fiscalCode: Schema.NullOr(Schema.String)
      }),
      Result: CompanyRow,
      execute: (input) => sql`
        INSERT INTO companies (tenant_id, name, description, fiscal_code)
        VALUES (${input.tenantId}, ${input.name}, ${input.description}, ${input.fiscalCode})
        RETURNING id, tenant_id, name, description, fiscal_code, counties, active, created_at`
    })
    const lockCompany = SqlSchema.findAll({
      Request: Schema.String,
      Result: CompanyRow,
      execute: (id) => sql`
        SELECT id, tenant_id, name, description, fiscal_code, counties, active, created_at
        FROM companies WHERE id = ${id} FOR UPDATE`
    })
    const updateCompany = SqlSchema.findAll({
      Request: Schema.Struct({
        id: Schema.String,
        name: Schema.String,
        description: Schema.String,
        fiscalCode: Schema.NullOr(Schema.String),
        counties: Schema.NullOr(Schema.Array(Schema.String))
      }),
      Result: CompanyRow,
      execute: (input) => sql`
        UPDATE companies SET name = ${input.name}, description = ${input.description},
                             fiscal_code = ${input.fiscalCode}, counties = ${input.counties}::text[],
                             updated_at = now()
        WHERE id = ${input.id}
        RETURNING id, tenant_id, name, description, fiscal_code, counties, active, created_at`
    })
    return {
      create: (input) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const tenant = yield* sql`SELECT 1 FROM tenants WHERE id = ${input.tenantId}`
              if (tenant.length === 0) return yield* new TenantNotFound({ tenantId: input.tenantId })
              const [row] = yield* insertCompany(input)
              yield* jobs.enqueue(RescoreCompany, { companyId: row!.id }, rescoreOnce(row!.id))
              return toCompany(row!)
            })
          )
          .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die })),
      update: (input) =>
        sql
          .withTransaction(
            Effect.gen(function* () {
              const [before] = yield* lockCompany(input.id)
              if (before === undefined) return yield* new CompanyNotFound({ id: input.id })
              const next = {
                name: input.name ?? before.name,
                description: input.description ?? before.description,
                fiscalCode: input.fiscalCode === undefined ? before.fiscal_code : input.fiscalCode,
                // Stored NULL when empty: "not set", so scoring infers them from the award history.
                counties:
                  input.counties === undefined ? before.counties : input.counties.length === 0 ? null : input.counties
              }
              const [row] = yield* updateCompany({ id: input.id, ...next })
              if (
                next.description !== before.description ||
                next.fiscalCode !== before.fiscal_code ||
                String(next.counties) !== String(before.counties)
              ) {
                yield* jobs.enqueue(RescoreCompany, { companyId: input.id }, rescoreOnce(input.id))
              }
              return toCompany(row!)
            })
          )
          .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))
    }
  })
).pipe(Layer.provide(JobQueueLive))
