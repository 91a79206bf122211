import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option } from "effect"
import { EmailTaken, TenantNotFound } from "../../domain/Errors.js"
import { hashPassword } from "../auth/PasswordHasher.js"

export interface User {
  readonly id: string
  readonly tenantId: string
  readonly email: string
  readonly passwordHash: string
}

export class UsersRepo extends Context.Tag("UsersRepo")<
  UsersRepo,
  {
    readonly create: (input: {
      readonly tenantId: string
      readonly email: string
      readonly password: string
    }) => Effect.Effect<User, EmailTaken | TenantNotFound>
    readonly findByEmail: (email: string) => Effect.Effect<Option.Option<User>>
  }
>() {}

/** E-mail addresses are compared case-insensitively: stored trimmed and lower-cased. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

interface UserRow {
  readonly id: string
  readonly tenant_id: string
  readonly email: string
  readonly password_hash: string
}
const toUser = (row: UserRow): User => ({
  id: row.id,
  tenantId: row.tenant_id,
  email: row.email,
  passwordHash: row.password_hash
})

export const UsersRepoLive = Layer.effect(
  UsersRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      create: (input) =>
        Effect.gen(function* () {
          const email = normalizeEmail(input.email)
          const passwordHash = yield* hashPassword(input.password)
          const tenant = yield* sql`SELECT 1 FROM tenants WHERE id = ${input.tenantId}`.pipe(Effect.orDie)
          if (tenant.length === 0) return yield* new TenantNotFound({ tenantId: input.tenantId })
          const rows = yield* sql<UserRow>`
            INSERT INTO users (tenant_id, email, password_hash) VALUES (${input.tenantId}, ${email}, ${passwordHash})
            ON CONFLICT (email) DO NOTHING
            RETURNING id, tenant_id, email, password_hash`.pipe(Effect.orDie)
          if (rows.length === 0) return yield* new EmailTaken({ email })
          return toUser(rows[0]!)
        }),
      findByEmail: (email) =>
        sql<UserRow>`SELECT id, tenant_id, email, password_hash FROM users WHERE email = ${normalizeEmail(email)}`.pipe(
          Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toUser)),
          Effect.orDie
        )
    }
  })
)
