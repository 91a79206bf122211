import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
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

const UserRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  email: Schema.String,
  password_hash: Schema.String
})
const toUser = (row: typeof UserRow.Type): User => ({
  id: row.id,
  tenantId: row.tenant_id,
  email: row.email,
  passwordHash: row.password_hash
})

export const UsersRepoLive = Layer.effect(
  UsersRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** None when the e-mail address is taken. */
    const insertUser = SqlSchema.findOne({
      Request: Schema.Struct({ tenantId: Schema.String, email: Schema.String, passwordHash: Schema.String }),
      Result: UserRow,
      execute: (input) => sql`
        INSERT INTO users (tenant_id, email, password_hash)
        VALUES (${input.tenantId}, ${input.email}, ${input.passwordHash})
        ON CONFLICT (email) DO NOTHING
        RETURNING id, tenant_id, email, password_hash`
    })
    const findUser = SqlSchema.findOne({
      Request: Schema.String,
      Result: UserRow,
      execute: (email) => sql`SELECT id, tenant_id, email, password_hash FROM users WHERE email = ${email}`
    })
    return {
      create: (input) =>
        Effect.gen(function* () {
          const email = normalizeEmail(input.email)
          const passwordHash = yield* hashPassword(input.password)
          const tenant = yield* sql`SELECT 1 FROM tenants WHERE id = ${input.tenantId}`.pipe(Effect.orDie)
          if (tenant.length === 0) return yield* new TenantNotFound({ tenantId: input.tenantId })
          const row = yield* insertUser({ tenantId: input.tenantId, email, passwordHash }).pipe(Effect.orDie)
          if (Option.isNone(row)) return yield* new EmailTaken({ email })
          return toUser(row.value)
        }),
      findByEmail: (email) => findUser(normalizeEmail(email)).pipe(Effect.map(Option.map(toUser)), Effect.orDie)
    }
  })
)
