import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { TenantNotFound } from "../../domain/Errors.js"
import { Plan } from "../../domain/Plan.js"

export interface Tenant {
  readonly id: string
  readonly name: string
  readonly plan: Plan
}

export class TenantsRepo extends Context.Tag("TenantsRepo")<
  TenantsRepo,
  {
    readonly create: (input: { readonly name: string; readonly plan: Plan }) => Effect.Effect<Tenant>
    readonly find: (tenantId: string) => Effect.Effect<Option.Option<Tenant>>
    readonly get: (tenantId: string) => Effect.Effect<Tenant, TenantNotFound>
    /** Every tenant, oldest first, with its users' e-mails (for an operator looking for a tenant id). */
    readonly list: Effect.Effect<ReadonlyArray<TenantSummary>>
    /** True while no tenant exists at all (a fresh database). */
    readonly none: Effect.Effect<boolean>
  }
>() {}

const TenantRow = Schema.Struct({ id: Schema.String, name: Schema.String, plan: Plan })

const TenantSummary = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  plan: Plan,
  createdAt: Schema.DateFromSelf,
  userEmails: Schema.Array(Schema.String),
  companyCount: Schema.Int
})
export type TenantSummary = typeof TenantSummary.Type

export const TenantsRepoLive = Layer.effect(
  TenantsRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const findTenant = SqlSchema.findOne({
      Request: Schema.String,
      Result: TenantRow,
      execute: (tenantId) => sql`SELECT id, name, plan FROM tenants WHERE id = ${tenantId}`
    })
    const insertTenant = SqlSchema.single({
      Request: Schema.Struct({ name: Schema.String, plan: Plan }),
      Result: TenantRow,
      execute: (input) =>
        sql`INSERT INTO tenants (name, plan) VALUES (${input.name}, ${input.plan}) RETURNING id, name, plan`
    })
    const noTenant = SqlSchema.single({
      Request: Schema.Void,
      Result: Schema.Struct({ none: Schema.Boolean }),
      execute: () => sql`SELECT NOT EXISTS (SELECT 1 FROM tenants) AS none`
    })
    const listTenants = SqlSchema.findAll({
      Request: Schema.Void,
      Result: TenantSummary,
      execute: () => sql`
        SELECT t.id, t.name, t.plan, t.created_at AS "createdAt",
               coalesce((SELECT array_agg(u.email ORDER BY u.email) FROM users u WHERE u.tenant_id = t.id), '{}')
                 AS "userEmails",
               (SELECT count(*)::int FROM companies c WHERE c.tenant_id = t.id) AS "companyCount"
        FROM tenants t
        ORDER BY t.created_at, t.id`
    })
    const find = (tenantId: string) => findTenant(tenantId).pipe(Effect.orDie)
    return {
      create: (input) => insertTenant(input).pipe(Effect.orDie),
      find,
      get: (tenantId) =>
        find(tenantId).pipe(
          Effect.flatMap(
            Option.match({ onNone: () => Effect.fail(new TenantNotFound({ tenantId })), onSome: Effect.succeed })
          )
        ),
      list: listTenants().pipe(Effect.orDie),
      none: noTenant().pipe(
        Effect.map((row) => row.none),
        Effect.orDie
      )
    }
  })
)
