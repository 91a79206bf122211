import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer } from "effect"
import { type FieldProblem, WatchlistInvalid, WatchlistLimitReached, WatchlistNotFound } from "../../domain/Errors.js"
import type { WatchlistCriteria } from "../../domain/scoring/Inputs.js"
import { type CpvCodeProblem, checkCpvCode, cpvCatalogKey, makeCpvCatalog } from "../../domain/tenders/Cpv.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { RescoreCompany } from "../scoring/ScoringJobKinds.js"

/**
 * Watchlists of a tenant: what a company watches for, and the alert threshold (`minScore`).
 * Deletion is soft (`deleted_at` set, `active` false) so alerts already raised keep their
 * watchlist. Every change queues `company.rescore` for the companies it touches, in the same
 * transaction.
 */

export interface Watchlist extends WatchlistCriteria {
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

interface WatchlistRow {
  readonly id: string
  readonly company_id: string
  readonly name: string
  readonly cpv_codes: ReadonlyArray<string>
  readonly keywords: ReadonlyArray<string>
  readonly min_value: string | null
  readonly max_value: string | null
  readonly authority_id: string | null
  readonly min_score: number
  readonly active: boolean
  readonly created_at: Date
}

const toWatchlist = (row: WatchlistRow): Watchlist => ({
  id: row.id,
  companyId: row.company_id,
  name: row.name,
  cpvCodes: row.cpv_codes.map((code) => code.trim()),
  keywords: row.keywords,
  minValue: row.min_value === null ? null : Number(row.min_value),
  maxValue: row.max_value === null ? null : Number(row.max_value),
  authorityId: row.authority_id,
  minScore: row.min_score,
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
      active, created_at`

    /** The domain's CPV rule over the rows of the table these codes need → canonical `NNNNNNNN-D`, deduplicated. */
    const canonicalCpvCodes = (codes: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const keys = codes.map(cpvCatalogKey).filter((key): key is string => key !== null)
        const catalog = makeCpvCatalog(
          keys.length === 0
            ? []
            : yield* sql<{ code_full: string }>`SELECT code_full FROM cpv_codes WHERE code = ANY(${keys})`
        )
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
          const [first] = yield* sql<{ id: string }>`
            SELECT id FROM companies WHERE tenant_id = ${tenantId} ORDER BY created_at, id LIMIT 1`
          if (first === undefined) problems.push({ path: "companyId", message: "the account has no company yet" })
          companyId = first?.id
        } else {
          const found = yield* sql`SELECT 1 FROM companies WHERE id = ${companyId} AND tenant_id = ${tenantId}`
          if (found.length === 0) problems.push({ path: "companyId", message: "no such company in this account" })
        }
        if (problems.length > 0) return yield* new WatchlistInvalid({ problems })
        return { cpvCodes: cpv?.canonical, companyId: companyId! }
      })

    const rescore = (companyIds: ReadonlyArray<string>) =>
      Effect.forEach(new Set(companyIds), (companyId) => jobs.enqueue(RescoreCompany, { companyId }), { discard: true })

    const list = (tenantId: string) =>
      sql<WatchlistRow>`
        SELECT ${columns} FROM watchlists WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
        ORDER BY created_at, id`.pipe(
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
            const [{ active }] = yield* sql<{ active: number }>`
              SELECT count(*)::int AS active FROM watchlists WHERE tenant_id = ${tenantId} AND deleted_at IS NULL`
            if (active >= input.limit) return yield* new WatchlistLimitReached({ limit: input.limit })
            const [row] = yield* sql<WatchlistRow>`
              INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_value, max_value,
                                      authority_id, min_score)
              VALUES (${tenantId}, ${refs.companyId}, ${fields.name}, ${refs.cpvCodes ?? []}::text[],
                      ${fields.keywords}::text[], ${fields.minValue}, ${fields.maxValue}, ${fields.authorityId},
                      ${fields.minScore})
              RETURNING ${columns}`
            yield* rescore([refs.companyId])
            return toWatchlist(row!)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    const update = (input: { readonly tenantId: string; readonly id: string; readonly patch: WatchlistPatch }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql<WatchlistRow>`
              SELECT ${columns} FROM watchlists
              WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND deleted_at IS NULL FOR UPDATE`
            if (row === undefined) return yield* new WatchlistNotFound({ id: input.id })
            const stored = toWatchlist(row)
            const { patch } = input
            const merged = {
              name: patch.name ?? stored.name,
              keywords: patch.keywords ?? stored.keywords,
              minValue: patch.minValue === undefined ? stored.minValue : patch.minValue,
              maxValue: patch.maxValue === undefined ? stored.maxValue : patch.maxValue,
              authorityId: patch.authorityId === undefined ? stored.authorityId : patch.authorityId,
              minScore: patch.minScore ?? stored.minScore
            }
            const refs = yield* checkReferences(
              input.tenantId,
              { ...merged, companyId: patch.companyId ?? stored.companyId },
              patch.cpvCodes
            )
            const [updated] = yield* sql<WatchlistRow>`
              UPDATE watchlists SET
                name = ${merged.name}, cpv_codes = ${refs.cpvCodes ?? stored.cpvCodes}::text[],
                keywords = ${merged.keywords}::text[], min_value = ${merged.minValue}, max_value = ${merged.maxValue},
                authority_id = ${merged.authorityId}, min_score = ${merged.minScore}, company_id = ${refs.companyId},
                updated_at = now()
              WHERE id = ${input.id}
              RETURNING ${columns}`
            yield* rescore([stored.companyId, refs.companyId])
            return toWatchlist(updated!)
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    const remove = (input: { readonly tenantId: string; readonly id: string }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql<{ company_id: string }>`
              UPDATE watchlists SET deleted_at = now(), active = false, updated_at = now()
              WHERE id = ${input.id} AND tenant_id = ${input.tenantId} AND deleted_at IS NULL
              RETURNING company_id`
            if (row === undefined) return yield* new WatchlistNotFound({ id: input.id })
            yield* rescore([row.company_id])
          })
        )
        .pipe(Effect.catchTag("SqlError", Effect.die))

    return { list, create, update, remove }
  })
).pipe(Layer.provide(JobQueueLive))
