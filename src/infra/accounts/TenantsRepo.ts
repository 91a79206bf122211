import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { TenantNotFound } from "../../domain/Errors.js"
import type { Plan } from "../../domain/Plan.js"

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

export const TenantsRepoLive = Layer.effect(
  TenantsRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const find = (tenantId: string) =>
      sql<Tenant>`SELECT id, name, plan FROM tenants WHERE id = ${tenantId}`.pipe(
        Effect.map((rows) => Option.fromNullable(rows[0])),
        Effect.orDie
      )
    return {
      create: (input) =>
        sql<Tenant>`INSERT INTO tenants (name, plan) VALUES (${input.name}, ${input.plan}) RETURNING id, name, plan`.pipe(
          Effect.map((rows) => rows[0]!),
          Effect.orDie
        ),
      find,
      get: (tenantId) =>
        find(tenantId).pipe(
          Effect.flatMap(
            Option.match({ onNone: () => Effect.fail(new TenantNotFound({ tenantId })), onSome: Effect.succeed })
          )
        ),
      none: sql<{ none: boolean }>`SELECT NOT EXISTS (SELECT 1 FROM tenants) AS none`.pipe(
        Effect.map((rows) => rows[0]!.none),
        Effect.orDie
      )
    }
  })
)
