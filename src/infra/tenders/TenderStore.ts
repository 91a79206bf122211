import { SqlClient, type SqlError, SqlSchema } from "@effect/sql"
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { type CpvCatalog, makeCpvCatalog } from "../../domain/tenders/Cpv.js"
import type { Authority, Tender } from "../../domain/tenders/TenderRecord.js"
import { JobQueue, JobQueueLive } from "../queue/JobQueue.js"
import { queueRescores } from "../scoring/ScoringJobKinds.js"

/** Tenders per statement: big enough to amortise round trips, small enough to keep locks short. */
export const TENDER_CHUNK_SIZE = 500

export interface UpsertResult {
  /** Ids of tenders that did not exist before (first arrival, new ingest_seq). */
  readonly inserted: ReadonlyArray<string>
  /** Ids of tenders updated in place (same id, same ingest_seq). */
  readonly updated: ReadonlyArray<string>
  /** Tenders the database refused, with its reason; every other tender of their chunk was stored. */
  readonly failed: ReadonlyArray<{ readonly tender: Tender; readonly reason: string }>
}

export class TenderStore extends Context.Tag("TenderStore")<
  TenderStore,
  {
    /**
     * Stores tenders, upserting by (source, source notice id): a re-imported notice keeps its id and
     * ingest_seq and gets the new fields. Contracting authorities are deduplicated by fiscal code,
     * else by normalised name. Each chunk is one transaction of set-based statements, so a tender is
     * written whole or not at all; a chunk the database refuses is retried tender by tender.
     */
    readonly upsert: (tenders: ReadonlyArray<Tender>) => Effect.Effect<UpsertResult>
    /**
     * The tenders keyed by the notice their chain of versions started from: a tender whose source id
     * is a later version's own id (an eForms change of a change names the first change) gets the
     * original's; the batch's own version ids are recorded for the versions to come. A tender already
     * keyed so is returned as is. `upsert` applies it; an intake that looks tenders up first applies
     * it before.
     */
    readonly resolveVersions: (tenders: ReadonlyArray<Tender>) => Effect.Effect<ReadonlyArray<Tender>>
    /** The stored tenders' ids, keyed by source and source notice id (NUL-separated); absent ones are left out. */
    readonly tenderIds: (tenders: ReadonlyArray<Tender>) => Effect.Effect<ReadonlyMap<string, string>>
    /**
     * Closes the tenders of cancelled procedures (a SEAP cancellation, a TED change notice "Notice
     * cancelled") from now on: `cancelled_at`, the first cancellation's time kept.
     */
    readonly closeCancelled: (tenderIds: ReadonlyArray<string>) => Effect.Effect<void>
    /** The CPV table (8-digit code → canonical code) for normalising imports. */
    readonly cpvCatalog: Effect.Effect<CpvCatalog>
  }
>() {}

const Texts = Schema.Array(Schema.String)
const NullableTexts = Schema.Array(Schema.NullOr(Schema.String))

/**
 * The ON CONFLICT assignments of a notice's own fields: an older version read after the stored one
 * (both dated, the stored one later) keeps the stored value; undated on either side the comparison
 * is NULL, so the notice read last wins.
 */
const KEEP_NEWER_VERSION = [
  "notice_type",
  "title",
  "description",
  "main_cpv",
  "additional_cpvs",
  "authority_id",
  "deadline",
  "estimated_value_ron",
  "estimated_value_eur",
  "source_url",
  "winner_fiscal_codes"
]
  .map(
    (column) =>
      `${column} = CASE WHEN EXCLUDED.source_issued_at < tenders.source_issued_at THEN tenders.${column} ELSE EXCLUDED.${column} END`
  )
  .join(",\n")

/** Authorities to upsert, column by column (unnest). */
const AuthorityColumns = Schema.Struct({
  name: Texts,
  normalizedName: Texts,
  fiscalCode: NullableTexts,
  county: NullableTexts
})

/** Tenders to upsert, column by column (unnest); lists are comma-joined, instants ISO 8601. */
const TenderColumns = Schema.Struct({
  source: Texts,
  sourceNoticeId: Texts,
  noticeType: Texts,
  title: Texts,
  description: Texts,
  mainCpv: Texts,
  additionalCpvs: Texts,
  authorityId: Texts,
  deadline: NullableTexts,
  estimatedValueRon: Schema.Array(Schema.NullOr(Schema.Number)),
  estimatedValueEur: Schema.Array(Schema.NullOr(Schema.Number)),
  publishDate: Texts,
  issuedAt: NullableTexts,
  sourceUrl: Texts,
  winnerFiscalCodes: Texts
})

const authorityColumns = (list: ReadonlyArray<Authority>): typeof AuthorityColumns.Type => ({
  name: list.map((a) => a.name),
  normalizedName: list.map((a) => a.normalizedName),
  fiscalCode: list.map((a) => a.fiscalCode),
  county: list.map((a) => a.county)
})

const keyOf = (tender: Tender) => `${tender.source}\u0000${tender.sourceNoticeId}`

/**
 * Two versions of one notice met in one chunk, merged by the rules ON CONFLICT applies across
 * chunks, since one INSERT cannot hold both: the fields of the later version (`incoming` unless both
 * are dated and it is older, as KEEP_NEWER_VERSION), the earliest publication date, the latest issue.
 */
const laterVersion = (kept: Tender, incoming: Tender): Tender => {
  const older = kept.issuedAt != null && incoming.issuedAt != null && incoming.issuedAt < kept.issuedAt
  const fields = older ? kept : incoming
  const issued = [kept.issuedAt, incoming.issuedAt].filter((d): d is Date => d != null)
  return {
    ...fields,
    publishDate: kept.publishDate < incoming.publishDate ? kept.publishDate : incoming.publishDate,
    issuedAt: issued.length === 0 ? null : new Date(Math.max(...issued.map((d) => d.getTime())))
  }
}

/** One tender per key in the chunk, its versions merged in the chunk's order (`laterVersion`). */
const mergedVersions = (chunk: ReadonlyArray<Tender>): Map<string, Tender> => {
  const byKey = new Map<string, Tender>()
  for (const tender of chunk) {
    const kept = byKey.get(keyOf(tender))
    byKey.set(keyOf(tender), kept === undefined ? tender : laterVersion(kept, tender))
  }
  return byKey
}

/** Rows are written in key order, so concurrent imports lock shared rows in the same order (no deadlock). */
const sortedValues = <A>(byKey: ReadonlyMap<string, A>): Array<A> =>
  [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value)

export const TenderStoreLive = Layer.effect(
  TenderStore,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue

    const upsertAuthoritiesWithCode = SqlSchema.findAll({
      Request: AuthorityColumns,
      Result: Schema.Struct({ id: Schema.String, fiscal_code: Schema.String }),
      execute: (c) => sql`
        INSERT INTO contracting_authorities (name, normalized_name, fiscal_code, county)
        SELECT * FROM unnest(
          ${c.name}::text[], ${c.normalizedName}::text[], ${c.fiscalCode}::text[], ${c.county}::text[])
        ON CONFLICT (fiscal_code) WHERE fiscal_code IS NOT NULL
        DO UPDATE SET county = COALESCE(contracting_authorities.county, EXCLUDED.county)
        RETURNING id, fiscal_code`
    })
    const upsertAuthoritiesWithoutCode = SqlSchema.findAll({
      Request: AuthorityColumns,
      Result: Schema.Struct({ id: Schema.String, normalized_name: Schema.String }),
      execute: (c) => sql`
        INSERT INTO contracting_authorities (name, normalized_name, county)
        SELECT * FROM unnest(${c.name}::text[], ${c.normalizedName}::text[], ${c.county}::text[])
        ON CONFLICT (normalized_name) WHERE fiscal_code IS NULL
        DO UPDATE SET county = COALESCE(contracting_authorities.county, EXCLUDED.county)
        RETURNING id, normalized_name`
    })
    const upsertTenders = SqlSchema.findAll({
      Request: TenderColumns,
      Result: Schema.Struct({
        id: Schema.String,
        source: Schema.String,
        source_notice_id: Schema.String,
        inserted: Schema.Boolean,
        main_cpv: Schema.String,
        winners: Schema.Array(Schema.String)
      }),
      execute: (c) => sql`
        INSERT INTO tenders (
          source, source_notice_id, notice_type, title, description, main_cpv, additional_cpvs,
          authority_id, deadline, estimated_value_ron, estimated_value_eur, publish_date, source_issued_at,
          source_url, winner_fiscal_codes)
        SELECT t.source, t.source_notice_id, t.notice_type, t.title, t.description, t.main_cpv,
          string_to_array(t.additional_cpvs, ',')::char(10)[], t.authority_id, t.deadline, t.ron, t.eur,
          t.publish_date, t.issued_at, t.source_url, string_to_array(t.winners, ',')
        FROM unnest(
          ${c.source}::text[],
          ${c.sourceNoticeId}::text[],
          ${c.noticeType}::text[],
          ${c.title}::text[],
          ${c.description}::text[],
          ${c.mainCpv}::text[],
          ${c.additionalCpvs}::text[],
          ${c.authorityId}::uuid[],
          ${c.deadline}::timestamptz[],
          ${c.estimatedValueRon}::numeric[],
          ${c.estimatedValueEur}::numeric[],
          ${c.publishDate}::timestamptz[],
          ${c.issuedAt}::timestamptz[],
          ${c.sourceUrl}::text[],
          ${c.winnerFiscalCodes}::text[]
        ) AS t(source, source_notice_id, notice_type, title, description, main_cpv, additional_cpvs,
               authority_id, deadline, ron, eur, publish_date, issued_at, source_url, winners)
        ON CONFLICT (source, source_notice_id) DO UPDATE SET
          -- An older version read later (the original after its change notice) changes none of these:
          -- KEEP_NEWER_VERSION. A tender was published when its first version was: a change notice's
          -- own date, or SEAP's state date that an erratum or a cancellation moves, never moves it.
          ${sql.literal(KEEP_NEWER_VERSION)},
          publish_date = least(tenders.publish_date, EXCLUDED.publish_date),
          source_issued_at = greatest(tenders.source_issued_at, EXCLUDED.source_issued_at),
          updated_at = now()
        RETURNING id, source, source_notice_id, (xmax = 0) AS inserted, main_cpv,
                  CASE WHEN notice_type = 'award' THEN winner_fiscal_codes ELSE '{}' END AS winners`
    })
    const knownVersions = SqlSchema.findAll({
      Request: Schema.Struct({ source: Texts, versionId: Texts }),
      Result: Schema.Struct({ source: Schema.String, version_id: Schema.String, source_notice_id: Schema.String }),
      execute: (c) => sql`
        SELECT v.source, v.version_id, v.source_notice_id
        FROM unnest(${c.source}::text[], ${c.versionId}::text[]) AS k(source, version_id)
        JOIN tender_version_ids v USING (source, version_id)`
    })
    const recordVersions = (c: {
      source: ReadonlyArray<string>
      versionId: ReadonlyArray<string>
      root: ReadonlyArray<string>
    }) =>
      sql`
        INSERT INTO tender_version_ids (source, version_id, source_notice_id)
        SELECT * FROM unnest(${c.source}::text[], ${c.versionId}::text[], ${c.root}::text[])
        ON CONFLICT (source, version_id) DO NOTHING`
    const allCpvCodes = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Schema.Struct({ code_full: Schema.String }),
      execute: () => sql`SELECT code_full FROM cpv_codes`
    })

    /** Authority ids for the given authorities, creating the missing ones; keyed by fiscal code or "name:" + normalised name. */
    const upsertAuthorities = (authorities: ReadonlyArray<Authority>) =>
      Effect.gen(function* () {
        // One row per key: the first spelling of the name, the first county given.
        const withCode = new Map<string, Authority>()
        const withoutCode = new Map<string, Authority>()
        for (const authority of authorities) {
          const [map, key] =
            authority.fiscalCode !== null ? [withCode, authority.fiscalCode] : [withoutCode, authority.normalizedName]
          const known = map.get(key)
          map.set(key, known === undefined ? authority : { ...known, county: known.county ?? authority.county })
        }
        const ids = new Map<string, string>()
        if (withCode.size > 0) {
          const rows = yield* upsertAuthoritiesWithCode(authorityColumns(sortedValues(withCode)))
          for (const row of rows) ids.set(row.fiscal_code, row.id)
        }
        if (withoutCode.size > 0) {
          const rows = yield* upsertAuthoritiesWithoutCode(authorityColumns(sortedValues(withoutCode)))
          for (const row of rows) ids.set(`name:${row.normalized_name}`, row.id)
        }
        return (authority: Authority) => ids.get(authority.fiscalCode ?? `name:${authority.normalizedName}`) as string
      })

    /**
     * What the stored versions of these tenders give their companies' profiles, by tender id: the
     * winners an award notice names, and the main CPV of a tender that active companies marked
     * (their feedback counts by its class). New tenders are not found: nothing is read for them.
     */
    const storedProfileInputs = (tenders: ReadonlyArray<Tender>) =>
      sql<{ id: string; winners: ReadonlyArray<string>; main_cpv: string; marked_by: ReadonlyArray<string> }>`
        SELECT t.id, CASE WHEN t.notice_type = 'award' THEN t.winner_fiscal_codes ELSE '{}' END AS winners, t.main_cpv,
               ARRAY(SELECT f.company_id::text FROM tender_feedback f JOIN companies c ON c.id = f.company_id AND c.active
                     WHERE f.tender_id = t.id ORDER BY f.company_id) AS marked_by
        FROM unnest(${tenders.map((t) => t.source)}::text[], ${tenders.map((t) => t.sourceNoticeId)}::text[])
          AS k(source, source_notice_id)
        JOIN tenders t USING (source, source_notice_id)
        WHERE (t.notice_type = 'award' AND cardinality(t.winner_fiscal_codes) > 0)
           OR EXISTS (SELECT 1 FROM tender_feedback f WHERE f.tender_id = t.id)`.pipe(
        Effect.map((rows) => ({
          winners: new Map(rows.filter((row) => row.winners.length > 0).map((row) => [row.id, row.winners])),
          marked: new Map(
            rows
              .filter((row) => row.marked_by.length > 0)
              .map((row) => [row.id, { mainCpv: row.main_cpv, markedBy: row.marked_by }])
          )
        }))
      )

    /**
     * Queues the rescore of the active companies that marked a tender whose main CPV this write
     * changed: their feedback counts by the code's class, so their scores moved (migration 0050 gives
     * them a new profile revision).
     */
    const rescoreMarkers = (
      before: ReadonlyMap<string, { readonly mainCpv: string; readonly markedBy: ReadonlyArray<string> }>,
      rows: ReadonlyArray<{ readonly id: string; readonly main_cpv: string }>
    ) =>
      queueRescores(
        jobs,
        rows.flatMap((row) => {
          const marked = before.get(row.id)
          return marked !== undefined && marked.mainCpv !== row.main_cpv ? marked.markedBy : []
        })
      )

    /**
     * Queues the rescore of the active companies an award notice no longer names as winner (an
     * erratum corrected a fiscal code, or the notice is no longer an award): their award history lost
     * it. (The winners it names now are rescored by the notice's scoring, `ScoringService.scoreTenders`.)
     */
    const rescoreFormerWinners = (
      before: ReadonlyMap<string, ReadonlyArray<string>>,
      rows: ReadonlyArray<{ readonly id: string; readonly winners: ReadonlyArray<string> }>
    ) =>
      Effect.gen(function* () {
        const former = rows.flatMap((row) => (before.get(row.id) ?? []).filter((code) => !row.winners.includes(code)))
        if (former.length === 0) return
        const companies = yield* sql<{ id: string }>`
          SELECT id FROM companies WHERE active AND fiscal_code = ANY(${[...new Set(former)]}::text[])`
        yield* queueRescores(
          jobs,
          companies.map(({ id }) => id)
        )
      })

    /** One chunk, in one transaction: authorities, then every tender in one INSERT … ON CONFLICT. */
    const upsertChunk = (chunk: ReadonlyArray<Tender>) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            // The same notice twice in a chunk: one row of its merged versions; the later counts as an update.
            const unique = sortedValues(mergedVersions(chunk))
            const authorityId = yield* upsertAuthorities(unique.map((t) => t.authority))
            const before = yield* storedProfileInputs(unique)
            const rows = yield* upsertTenders({
              source: unique.map((t) => t.source),
              sourceNoticeId: unique.map((t) => t.sourceNoticeId),
              noticeType: unique.map((t) => t.noticeType),
              title: unique.map((t) => t.title),
              description: unique.map((t) => t.description),
              mainCpv: unique.map((t) => t.mainCpv),
              additionalCpvs: unique.map((t) => t.additionalCpvs.join(",")),
              authorityId: unique.map((t) => authorityId(t.authority)),
              deadline: unique.map((t) => t.deadline?.toISOString() ?? null),
              estimatedValueRon: unique.map((t) => t.estimatedValueRon),
              estimatedValueEur: unique.map((t) => t.estimatedValueEur),
              publishDate: unique.map((t) => t.publishDate.toISOString()),
              issuedAt: unique.map((t) => t.issuedAt?.toISOString() ?? null),
              sourceUrl: unique.map((t) => t.sourceUrl),
              winnerFiscalCodes: unique.map((t) => t.winnerFiscalCodes.join(","))
            })
            yield* rescoreFormerWinners(before.winners, rows)
            yield* rescoreMarkers(before.marked, rows)
            const byKey = new Map(rows.map((row) => [`${row.source}\u0000${row.source_notice_id}`, row]))
            const inserted: Array<string> = []
            const updated: Array<string> = []
            const seen = new Set<string>()
            for (const tender of chunk) {
              const row = byKey.get(keyOf(tender))!
              const first = !seen.has(row.id)
              seen.add(row.id)
              if (first && row.inserted) inserted.push(row.id)
              else updated.push(row.id)
            }
            return { inserted, updated }
          })
        )
        .pipe(Effect.catchTag("ParseError", Effect.die))

    const resolveVersions = (tenders: ReadonlyArray<Tender>) =>
      Effect.gen(function* () {
        if (tenders.length === 0) return tenders
        const versionKey = (source: string, id: string) => `${source}\u0000${id}`
        const stored = yield* knownVersions({
          source: tenders.map((t) => t.source),
          versionId: tenders.map((t) => t.sourceNoticeId)
        })
        const previous = new Map(stored.map((row) => [versionKey(row.source, row.version_id), row.source_notice_id]))
        // A change and the change of it in one batch, in either order.
        for (const tender of tenders) {
          const key = tender.versionId == null ? undefined : versionKey(tender.source, tender.versionId)
          if (key !== undefined && !previous.has(key)) previous.set(key, tender.sourceNoticeId)
        }
        const rootOf = (source: string, id: string) => {
          const visited = new Set<string>()
          let root = id
          while (previous.has(versionKey(source, root)) && !visited.has(root)) {
            visited.add(root)
            root = previous.get(versionKey(source, root))!
          }
          return root
        }
        const resolved = tenders.map((tender) => {
          const root = rootOf(tender.source, tender.sourceNoticeId)
          return root === tender.sourceNoticeId ? tender : { ...tender, sourceNoticeId: root }
        })
        const versions = resolved.filter(
          (t): t is Tender & { versionId: string } => t.versionId != null && t.versionId !== t.sourceNoticeId
        )
        if (versions.length > 0) {
          yield* recordVersions({
            source: versions.map((t) => t.source),
            versionId: versions.map((t) => t.versionId),
            root: versions.map((t) => t.sourceNoticeId)
          })
        }
        return resolved
      }).pipe(Effect.orDie)

    const reasonOf = (error: SqlError.SqlError) =>
      String((error.cause as { message?: unknown } | undefined)?.message ?? error.message).replace(/\s+/g, " ")

    const upsert = (given: ReadonlyArray<Tender>) =>
      Effect.gen(function* () {
        const tenders = yield* resolveVersions(given)
        const inserted: Array<string> = []
        const updated: Array<string> = []
        const failed: Array<{ tender: Tender; reason: string }> = []
        for (let start = 0; start < tenders.length; start += TENDER_CHUNK_SIZE) {
          const chunk = tenders.slice(start, start + TENDER_CHUNK_SIZE)
          const result = yield* upsertChunk(chunk).pipe(
            // A refused chunk: store what can be stored, one tender per transaction.
            Effect.catchTag("SqlError", () =>
              Effect.forEach(chunk, (tender) =>
                upsertChunk([tender]).pipe(
                  Effect.catchTag("SqlError", (error) => {
                    failed.push({ tender, reason: `database refused it: ${reasonOf(error)}` })
                    return Effect.succeed({ inserted: [], updated: [] })
                  })
                )
              ).pipe(
                Effect.map((results) => ({
                  inserted: results.flatMap((r) => r.inserted),
                  updated: results.flatMap((r) => r.updated)
                }))
              )
            )
          )
          inserted.push(...result.inserted)
          updated.push(...result.updated)
        }
        return { inserted, updated, failed }
      })

    const tenderIds = (tenders: ReadonlyArray<Tender>) =>
      sql<{ id: string; source: string; source_notice_id: string }>`
        SELECT t.id, t.source, t.source_notice_id
        FROM unnest(${tenders.map((t) => t.source)}::text[], ${tenders.map((t) => t.sourceNoticeId)}::text[])
          AS k(source, source_notice_id)
        JOIN tenders t USING (source, source_notice_id)`.pipe(
        Effect.map(
          (rows): ReadonlyMap<string, string> =>
            new Map(rows.map((row) => [`${row.source}\u0000${row.source_notice_id}`, row.id]))
        ),
        Effect.orDie
      )

    const closeCancelled = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.void
        : Effect.flatMap(Clock.currentTimeMillis, (now) =>
            sql`UPDATE tenders SET cancelled_at = coalesce(cancelled_at, ${new Date(now)})
                WHERE id = ANY(${ids}::uuid[])`.pipe(Effect.asVoid, Effect.orDie)
          )

    const cpvCatalog = allCpvCodes().pipe(Effect.map(makeCpvCatalog), Effect.orDie)

    return { upsert, resolveVersions, tenderIds, closeCancelled, cpvCatalog }
  })
).pipe(Layer.provide(JobQueueLive))
