import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { TenantNotFound } from "../../domain/Errors.js"

export interface Company {
  readonly id: string
  readonly tenantId: string
  readonly name: string
  readonly description: string
  readonly fiscalCode: string | null
  readonly active: boolean
  readonly createdAt: Date
}

export class CompaniesRepo extends Context.Tag("CompaniesRepo")<
  CompaniesRepo,
  {
    readonly create: (input: {
      readonly tenantId: string
      readonly name: string
      readonly description: string
      readonly fiscalCode: string | null
    }) => Effect.Effect<Company, TenantNotFound>
  }
>() {}

export const CompaniesRepoLive = Layer.effect(
  CompaniesRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      create: (input) =>
        Effect.gen(function* () {
          const tenant = yield* sql`SELECT 1 FROM tenants WHERE id = ${input.tenantId}`
          if (tenant.length === 0) return yield* new TenantNotFound({ tenantId: input.tenantId })
          const [row] = yield* sql<{
            id: string
            tenant_id: string
            name: string
            description: string
            fiscal_code: string | null
            active: boolean
            created_at: Date
          }>`
            INSERT INTO companies (tenant_id, name, description, fiscal_code)
            VALUES (${input.tenantId}, ${input.name}, ${input.description}, ${input.fiscalCode})
            RETURNING id, tenant_id, name, description, fiscal_code, active, created_at`
          return {
            id: row!.id,
            tenantId: row!.tenant_id,
            name: row!.name,
            description: row!.description,
            fiscalCode: row!.fiscal_code,
            active: row!.active,
            createdAt: row!.created_at
          }
        }).pipe(Effect.catchTag("SqlError", Effect.die))
    }
  })
)
