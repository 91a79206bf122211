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
    /** True while no tenant exists at all (a fresh database). */
    readonly none: Effect.Effect<boolean>
  }
>() {}

const TenantRow = Schema.Struct({ id: Schema.String, name: Schema.String, plan: Plan })

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
      none: noTenant().pipe(
        Effect.map((row) => row.none),
        Effect.orDie
      )
    }
  })
)
