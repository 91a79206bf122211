import { SqlClient, SqlSchema } from "@effect/sql"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { CompanyNotFound } from "../../domain/Errors.js"
import { inferCounties } from "../../domain/scoring/Place.js"
import { canonicalCounty } from "../../domain/tenders/CountyDistance.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { RescoreCompany, rescoreOnce } from "../scoring/ScoringJobKinds.js"

/** Companies as the browser app shows and edits them (the multi-client workspace). */

export interface CompanyProfile {
  readonly id: string
  readonly name: string
  readonly description: string
  /** Digits of the Romanian fiscal code, or null. */
  readonly fiscalCode: string | null
  /** The counties the company works in, as set (extension); empty when not set. */
  readonly counties: ReadonlyArray<string>
  readonly active: boolean
  readonly createdAt: Date
}

export interface CompanyListItem extends CompanyProfile {
  /** Active (not deleted) watchlists of the company. */
  readonly watchlistCount: number
}

export interface CompanyDetail extends CompanyProfile {
  /** The counties scoring infers from the company's award history (Place.inferCounties), used while `counties` is empty. */
  readonly inferredCounties: ReadonlyArray<string>
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
    /** Adds a company to the tenant and queues its first `company.rescore`. */
    readonly create: (input: NewCompany) => Effect.Effect<CompanyDetail>
    /**
     * Changes the given fields (`fiscalCode: null` clears it). A changed description or fiscal code,
     * or a reactivation, queues `company.rescore` (an inactive company is not scored).
     */
    readonly update: (input: CompanyChanges) => Effect.Effect<CompanyDetail, CompanyNotFound>
  }
>() {}

export interface NewCompany {
  readonly tenantId: string
  readonly name: string
  readonly description: string
  readonly fiscalCode: string | null
  /** The counties it works in (extension); empty or absent: inferred from the award history. */
  readonly counties?: ReadonlyArray<string>
}

export interface CompanyChanges {
  readonly tenantId: string
  readonly id: string
  readonly name?: string
  readonly description?: string
  readonly fiscalCode?: string | null
  /** Empty clears them (then they are inferred from the award history). */
  readonly counties?: ReadonlyArray<string>
  readonly active?: boolean
}

const CompanyRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.String,
  fiscal_code: Schema.NullOr(Schema.String),
  counties: Schema.NullOr(Schema.Array(Schema.String)),
  active: Schema.Boolean,
  created_at: Schema.DateFromSelf
})
type CompanyRow = typeof CompanyRow.Type

const CompanyListRow = Schema.Struct({ ...CompanyRow.fields, watchlist_count: Schema.Number })

const WatchlistRef = Schema.Struct({ id: Schema.String, name: Schema.String, active: Schema.Boolean })

const TenantCompany = Schema.Struct({ tenantId: Schema.String, id: Schema.String })

const toProfile = (row: CompanyRow): CompanyProfile => ({
  id: row.id,
  name: row.name,
  description: row.description,
  fiscalCode: row.fiscal_code,
  counties: row.counties ?? [],
  active: row.active,
  createdAt: row.created_at
})

export const CompanyProfilesRepoLive = Layer.effect(
  CompanyProfilesRepo,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue

    const listCompanies = SqlSchema.findAll({
      Request: Schema.String,
      Result: CompanyListRow,
      execute: (tenantId) => sql`
        SELECT c.id, c.name, c.description, c.fiscal_code, c.counties, c.active, c.created_at,
               (SELECT count(*)::int FROM watchlists w WHERE w.company_id = c.id AND w.deleted_at IS NULL)
                 AS watchlist_count
        FROM companies c WHERE c.tenant_id = ${tenantId}
        ORDER BY c.created_at, c.id`
    })
    const watchlistsOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: WatchlistRef,
      execute: (companyId) => sql`
        SELECT id, name, active FROM watchlists WHERE company_id = ${companyId} AND deleted_at IS NULL
        ORDER BY created_at, id`
    })
    const findCompany = SqlSchema.findOne({
      Request: TenantCompany,
      Result: CompanyRow,
      execute: (input) => sql`
        SELECT id, name, description, fiscal_code, counties, active, created_at FROM companies
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId}`
    })
    const insertCompany = SqlSchema.findAll({
      Request: Schema.Struct({
        tenantId: Schema.String,
        name: Schema.String,
        description: Schema.String,
        fiscalCode: Schema.NullOr(Schema.String),
        counties: Schema.NullOr(Schema.Array(Schema.String))
      }),
      Result: CompanyRow,
      execute: (input) => sql`
        INSERT INTO companies (tenant_id, name, description, fiscal_code, counties)
        VALUES (${input.tenantId}, ${input.name}, ${input.description}, ${input.fiscalCode}, ${input.counties}::text[])
        RETURNING id, name, description, fiscal_code, counties, active, created_at`
    })
    const lockCompany = SqlSchema.findAll({
      Request: TenantCompany,
      Result: Schema.Struct({
        description: Schema.String,
        fiscal_code: Schema.NullOr(Schema.String),
        counties: Schema.NullOr(Schema.Array(Schema.String)),
        active: Schema.Boolean
      }),
      execute: (input) => sql`
        SELECT description, fiscal_code, counties, active FROM companies
        WHERE id = ${input.id} AND tenant_id = ${input.tenantId} FOR UPDATE`
    })
    /** Null leaves a column as stored, except the fiscal code and the counties, which are always written. */
    const updateCompany = SqlSchema.findAll({
      Request: Schema.Struct({
        id: Schema.String,
        name: Schema.NullOr(Schema.String),
        description: Schema.NullOr(Schema.String),
        fiscalCode: Schema.NullOr(Schema.String),
        counties: Schema.NullOr(Schema.Array(Schema.String)),
        active: Schema.NullOr(Schema.Boolean)
      }),
      Result: CompanyRow,
      execute: (input) => sql`
        UPDATE companies SET
          name = coalesce(${input.name}, name),
          description = coalesce(${input.description}, description),
          fiscal_code = ${input.fiscalCode},
          counties = ${input.counties}::text[],
          active = coalesce(${input.active}::boolean, active),
          updated_at = now()
        WHERE id = ${input.id}
        RETURNING id, name, description, fiscal_code, counties, active, created_at`
    })

    const list = (tenantId: string) =>
      listCompanies(tenantId).pipe(
        Effect.map((rows) => rows.map((row) => ({ ...toProfile(row), watchlistCount: row.watchlist_count }))),
        Effect.orDie
      )

    /** The counties of the authorities whose award notices name the company as winner. */
    const awardCounties = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ county: Schema.NullOr(Schema.String) }),
      execute: (companyId) => sql`
        SELECT ca.county FROM companies c
        JOIN tenders a ON a.notice_type = 'award' AND a.winner_fiscal_codes @> ARRAY[c.fiscal_code]::text[]
        JOIN contracting_authorities ca ON ca.id = a.authority_id
        WHERE c.id = ${companyId} AND c.fiscal_code IS NOT NULL`
    })

    const detail = (row: CompanyRow) =>
      Effect.all([watchlistsOf(row.id), awardCounties(row.id)]).pipe(
        Effect.map(
          ([watchlists, awards]): CompanyDetail => ({
            ...toProfile(row),
            inferredCounties: inferCounties(
              awards.map((award) => ({ county: award.county === null ? null : canonicalCounty(award.county) }))
            ),
            watchlists
          })
        )
      )

    const get = (input: { readonly tenantId: string; readonly id: string }) =>
      findCompany(input).pipe(
        Effect.orDie,
        Effect.flatMap(
          Option.match({
            onNone: () => Effect.fail(new CompanyNotFound({ id: input.id })),
            onSome: (row) => Effect.orDie(detail(row))
          })
        )
      )

    const create = (input: NewCompany) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // Stored NULL when empty: "not set", so scoring infers them from the award history.
            const counties = input.counties === undefined || input.counties.length === 0 ? null : input.counties
            const [row] = yield* insertCompany({ ...input, counties })
            yield* jobs.enqueue(RescoreCompany, { companyId: row!.id }, rescoreOnce(row!.id))
            // Its awards may be imported already: the detail infers its counties from them.
            return yield* detail(row!)
          })
        )
        .pipe(Effect.orDie)

    const update = (input: CompanyChanges) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const [before] = yield* lockCompany(input)
            if (before === undefined) return yield* new CompanyNotFound({ id: input.id })
            const fiscalCode = input.fiscalCode === undefined ? before.fiscal_code : input.fiscalCode
            // Stored NULL when empty: "not set", so scoring infers them.
            const counties =
              input.counties === undefined ? before.counties : input.counties.length === 0 ? null : input.counties
            const [row] = yield* updateCompany({
              id: input.id,
              name: input.name ?? null,
              description: input.description ?? null,
              fiscalCode,
              counties,
              active: input.active ?? null
            })
            const rescore =
              row!.active &&
              (row!.description !== before.description ||
                row!.fiscal_code !== before.fiscal_code ||
                String(row!.counties) !== String(before.counties) ||
                !before.active)
            if (rescore) yield* jobs.enqueue(RescoreCompany, { companyId: input.id }, rescoreOnce(input.id))
            return yield* detail(row!)
          })
        )
        .pipe(Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    return { list, get, create, update }
  })
).pipe(Layer.provide(JobQueueLive))
