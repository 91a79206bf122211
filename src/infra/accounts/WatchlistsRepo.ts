import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { type FieldProblem, WatchlistInvalid, WatchlistLimitReached, WatchlistNotFound } from "../../domain/Errors.js"
import type { WatchlistCriteria } from "../../domain/scoring/Inputs.js"
import { type CpvCodeProblem, checkCpvCode, cpvCatalogKey, makeCpvCatalog } from "../../domain/tenders/Cpv.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { queueRescores } from "../scoring/ScoringJobKinds.js"

/**
 * Watchlists of a tenant: what a company watches for, and the alert threshold (`minScore`).
 * Deletion is soft (`deleted_at` set, `active` false) so alerts already raised keep their
 * watchlist. Every change queues `company.rescore` for the companies it touches, in the same
 * transaction.
 */

export interface Watchlist extends WatchlistCriteria {
  readonly counties: ReadonlyArray<string>
  readonly id: string
  readonly companyId: string
  readonly name: string
  readonly active: boolean
  readonly createdAt: Date
}

export interface WatchlistFields extends WatchlistCriteria {
  readonly name: string
  /** Absent: the tenant's first company. */
  readonly companyId: string | undefined
}

/** A partial update: absent keys stay as stored; null clears minValue, maxValue and authorityId. */
export type WatchlistPatch = Partial<Omit<WatchlistFields, "companyId">> & { readonly companyId?: string }

export class WatchlistsRepo extends Context.Tag("WatchlistsRepo")<
  WatchlistsRepo,
  {
    /** Active (not deleted) watchlists, oldest first. */
    readonly list: (tenantId: string) => Effect.Effect<ReadonlyArray<Watchlist>>
    /** At most `limit` active watchlists per tenant, also under concurrent creations. */
    readonly create: (input: {
      readonly tenantId: string
      readonly limit: number
      readonly fields: WatchlistFields
    }) => Effect.Effect<Watchlist, WatchlistInvalid | WatchlistLimitReached>
    readonly update: (input: {
      readonly tenantId: string
      readonly id: string
      readonly patch: WatchlistPatch
    }) => Effect.Effect<Watchlist, WatchlistInvalid | WatchlistNotFound>
    readonly remove: (input: {
      readonly tenantId: string
      readonly id: string
    }) => Effect.Effect<void, WatchlistNotFound>
  }
>() {}

/** `numeric` values arrive as text; `cpv_codes` is `char(10)[]`. */
const WatchlistRow = Schema.Struct({
  id: Schema.String,
  company_id: Schema.String,
  name: Schema.String,
  cpv_codes: Schema.Array(Schema.String),
  keywords: Schema.Array(Schema.String),
  min_value: Schema.NullOr(Schema.String),
  max_value: Schema.NullOr(Schema.String),
  authority_id: Schema.NullOr(Schema.String),
  min_score: Schema.Number,
  counties: Schema.Array(Schema.String),
  active: Schema.Boolean,
  created_at: Schema.DateFromSelf
})

const TenantWatchlist = Schema.Struct({ tenantId: Schema.String, id: Schema.String })

/** The stored fields of a watchlist, as written by create and update. */
const WatchlistWrite = Schema.Struct({
  companyId: Schema.String,
  name: Schema.String,
  cpvCodes: Schema.Array(Schema.String),
  keywords: Schema.Array(Schema.String),
  minValue: Schema.NullOr(Schema.Number),
  maxValue: Schema.NullOr(Schema.Number),
  authorityId: Schema.NullOr(Schema.String),
  minScore: Schema.Number,
  counties: Schema.Array(Schema.String)
})

const toWatchlist = (row: typeof WatchlistRow.Type): Watchlist => ({
  id: row.id,
  companyId: row.company_id,
  name: row.name,
  cpvCodes: row.cpv_codes.map((code) => code.trim()),
  keywords: row.keywords,
  minValue: row.min_value === null ? null : Number(row.min_value),
  maxValue: row.max_value === null ? null : Number(row.max_value),
  authorityId: row.authority_id,
  minScore: row.min_score,
  counties: row.counties,
  active: row.active,
  createdAt: row.created_at
})

/** The API's wording of a refused watchlist CPV code (a 400 detail). */
const cpvProblemMessage = (problem: CpvCodeProblem): string => {
  switch (problem._tag) {
    case "Malformed":
      return `malformed CPV code ${problem.input}`
    case "Unknown":
      return `unknown CPV code ${problem.input}`
    case "WrongCheckDigit":
      return `wrong check digit in ${problem.input}; the code is ${problem.canonical}`
  }
}

export const WatchlistsRepoLive = Layer.effect(
  WatchlistsRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue
    const columns = sql`id, company_id, name, cpv_codes, keywords, min_value, max_value, authority_id, min_score,
      counties, active, created_at`

    const cpvRows = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: Schema.Struct({ code_full: Schema.String }),
      execute: (keys) => sql`SELECT code_full FROM cpv_codes WHERE code = ANY(${keys})`
    })
    const firstCompany = SqlSchema.findOne({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (tenantId) => sql`
        SELECT id FROM companies WHERE tenant_id = ${tenantId} AND active ORDER BY created_at, id LIMIT 1`
    })
    const activeWatchlists = SqlSchema.findAll({
      Request: Schema.String,
      Result: WatchlistRow,
      execute: (tenantId) => sql`
        SELECT ${columns} FROM watchlists WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
        ORDER BY created_at, id`
    })
    const countActive = SqlSchema.single({
      Request: Schema.String,
      Result: Schema.Struct({ active: Schema.Number }),
      execute: (tenantId) => sql`
        SELECT count(*)::int AS active FROM watchlists WHERE tenant_id = ${tenantId} AND deleted_at IS NULL`
    })
    const insertWatchlist = SqlSchema.single({
      Request: Schema.Struct({ tenantId: Schema.String, ...WatchlistWrite.fields }),
      Result: WatchlistRow,
      execute: (input) => sql`
        INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value,
                                authority_id, min_score, counties)
        VALUES (${input.tenantId}, ${input.companyId}, ${input.name}, ${input.cpvCodes}::text[],
                ${input.keywords}::text[], ${input.minValue}, ${input.maxValue}, ${input.authorityId},
                ${input.minScore}, ${input.counties}::text[])
        RETURNING ${columns}`
    })
    const lockWatchlist = SqlSchema.findOne({
      Request: TenantWatchlist,
      Result: WatchlistRow,
      execute: (input) => sql`
        SELECT ${columns} FROM watchlists
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND deleted_at IS NULL FOR UPDATE`
    })
    const updateWatchlist = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, ...WatchlistWrite.fields }),
      Result: WatchlistRow,
      execute: (input) => sql`
        UPDATE watchlists SET
          name = ${input.name}, cpv_codes = ${input.cpvCodes}::text[],
          keywords = ${input.keywords}::text[], min_value = ${input.minValue}, max_value = ${input.maxValue},
          authority_id = ${input.authorityId}, min_score = ${input.minScore}, company_id = ${input.companyId},
          counties = ${input.counties}::text[],
          updated_at = now()
        WHERE id = ${input.id}
        RETURNING ${columns}`
    })
    const deleteWatchlist = SqlSchema.findOne({
      Request: TenantWatchlist,
      Result: Schema.Struct({ company_id: Schema.String }),
      execute: (input) => sql`
        UPDATE watchlists SET deleted_at = now(), active = false, updated_at = now()
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND deleted_at IS NULL
        RETURNING company_id`
    })

    /** The domain's CPV rule over the rows of the table these codes need → canonical `NNNNNNNN-D`, deduplicated. */
    const canonicalCpvCodes = (codes: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const keys = codes.map(cpvCatalogKey).filter((key): key is string => key !== null)
        const catalog = makeCpvCatalog(keys.length === 0 ? [] : yield* cpvRows(keys))
        const problems: Array<FieldProblem> = []
        const canonical: Array<string> = []
        codes.forEach((code, index) => {
          const checked = checkCpvCode(catalog, code)
          if (checked._tag === "Left") {
            problems.push({ path: `cpvCodes.${index}`, message: cpvProblemMessage(checked.left) })
          } else if (!canonical.includes(checked.right)) canonical.push(checked.right)
        })
        return { canonical, problems }
      })

    const checkReferences = (
      tenantId: string,
      fields: Pick<WatchlistFields, "authorityId" | "companyId" | "minValue" | "maxValue">,
      cpvCodes: ReadonlyArray<string> | undefined
    ) =>
      Effect.gen(function* () {
        const problems: Array<FieldProblem> = []
        const cpv = cpvCodes === undefined ? undefined : yield* canonicalCpvCodes(cpvCodes)
        if (cpv !== undefined) problems.push(...cpv.problems)
        if (fields.minValue !== null && fields.maxValue !== null && fields.minValue > fields.maxValue)
          problems.push({ path: "minValue", message: "must not be greater than maxValue" })
        if (fields.authorityId !== null) {
          const found = yield* sql`SELECT 1 FROM contracting_authorities WHERE id = ${fields.authorityId}`
          if (found.length === 0) problems.push({ path: "authorityId", message: "unknown contracting authority" })
        }
        let companyId = fields.companyId
        if (companyId === undefined) {
          const first = yield* firstCompany(tenantId)
          // The first company still scored: a deactivated one's watchlists raise no alert.
          if (Option.isNone(first)) problems.push({ path: "companyId", message: "the account has no active company" })
          companyId = Option.getOrUndefined(first)?.id
        } else {
          const found = yield* sql`SELECT 1 FROM companies WHERE id = ${companyId} AND tenant_id = ${tenantId}`
          if (found.length === 0) problems.push({ path: "companyId", message: "no such company in this account" })
        }
        if (problems.length > 0) return yield* new WatchlistInvalid({ problems })
        return { cpvCodes: cpv?.canonical, companyId: companyId! }
      })

    const rescore = (companyIds: ReadonlyArray<string>) => queueRescores(jobs, companyIds)

    const list = (tenantId: string) =>
      activeWatchlists(tenantId).pipe(
        Effect.map((rows) => rows.map(toWatchlist)),
        Effect.orDie
      )

    const create = (input: { readonly tenantId: string; readonly limit: number; readonly fields: WatchlistFields }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const { fields, tenantId } = input
            const refs = yield* checkReferences(tenantId, fields, fields.cpvCodes)
            // The tenant row lock serialises concurrent creations, so the count cannot go stale.
            yield* sql`SELECT id FROM tenants WHERE id = ${tenantId} FOR UPDATE`
            const { active } = yield* countActive(tenantId)
            if (active >= input.limit) return yield* new WatchlistLimitReached({ limit: input.limit })
            const row = yield* insertWatchlist({
              tenantId,
              companyId: refs.companyId,
              name: fields.name,
              cpvCodes: refs.cpvCodes ?? [],
              keywords: fields.keywords,
              minValue: fields.minValue,
              maxValue: fields.maxValue,
              authorityId: fields.authorityId,
              minScore: fields.minScore,
              counties: fields.counties ?? []
            })
            yield* rescore([refs.companyId])
            return toWatchlist(row)
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die, NoSuchElementException: Effect.die }))

    const update = (input: { readonly tenantId: string; readonly id: string; readonly patch: WatchlistPatch }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const row = yield* lockWatchlist(input)
            if (Option.isNone(row)) return yield* new WatchlistNotFound({ id: input.id })
            const stored = toWatchlist(row.value)
            const { patch } = input
            const merged = {
              name: patch.name ?? stored.name,
              keywords: patch.keywords ?? stored.keywords,
              minValue: patch.minValue === undefined ? stored.minValue : patch.minValue,
              maxValue: patch.maxValue === undefined ? stored.maxValue : patch.maxValue,
              authorityId: patch.authorityId === undefined ? stored.authorityId : patch.authorityId,
              minScore: patch.minScore ?? stored.minScore,
              counties: patch.counties ?? stored.counties
            }
            const refs = yield* checkReferences(
              input.tenantId,
              { ...merged, companyId: patch.companyId ?? stored.companyId },
              patch.cpvCodes
            )
            const updated = yield* updateWatchlist({
              ...merged,
              id: input.id,
              cpvCodes: refs.cpvCodes ?? stored.cpvCodes,
              companyId: refs.companyId
            })
            yield* rescore([stored.companyId, refs.companyId])
            return toWatchlist(updated)
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die, NoSuchElementException: Effect.die }))

    const remove = (input: { readonly tenantId: string; readonly id: string }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const row = yield* deleteWatchlist(input)
            if (Option.isNone(row)) return yield* new WatchlistNotFound({ id: input.id })
            yield* rescore([row.value.company_id])
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    return { list, create, update, remove }
  })
).pipe(Layer.provide(JobQueueLive))
