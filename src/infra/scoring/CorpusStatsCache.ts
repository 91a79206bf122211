import { SqlClient, type SqlError } from "@effect/sql"
import { Effect, Ref, Schema } from "effect"
import { prepareTender } from "../../domain/scoring/Inputs.js"
import { buildCorpusStats, type CorpusStats } from "../../domain/scoring/Semantic.js"

/** Tenders sampled (most recent first) for the document frequencies. */
export const CORPUS_SAMPLE_SIZE = 20_000
/** Rebuild when the tender count grew by this fraction since the last build. */
const GROWTH_TO_REBUILD = 0.1

const SampleRow = Schema.Struct({ title: Schema.String, description: Schema.String, cpv_label: Schema.String })
const decodeSample = Schema.decodeUnknown(Schema.Array(SampleRow))

/** `ingest_seq` is a bigint: it arrives as text. */
const decodeLatest = Schema.decodeUnknown(Schema.Tuple(Schema.Struct({ seq: Schema.NumberFromString })))

interface Snapshot {
  readonly stats: CorpusStats
  readonly builtAtSeq: number
}

/**
 * Document frequencies for the semantic factor, from the latest tenders, cached in memory and
 * rebuilt when the corpus has grown by 10% (so a cold start with few tenders rebuilds often, a
 * large corpus rarely). Scores depend on it, so they are deterministic for a given corpus.
 */
export const makeCorpusStatsCache = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const snapshot = yield* Ref.make<Snapshot | null>(null)

  const build = (latestSeq: number) =>
    Effect.gen(function* () {
      // With the CPV label, as scoring prepares a tender (ScoringReads), so its words are counted too.
      const rows = yield* sql`
        SELECT t.title, t.description,
               coalesce((SELECT c.label_ro FROM cpv_codes c WHERE c.code_full = t.main_cpv), '') AS cpv_label
        FROM tenders t ORDER BY t.ingest_seq DESC LIMIT ${CORPUS_SAMPLE_SIZE}`.pipe(
        Effect.flatMap((rows) => Effect.orDie(decodeSample(rows)))
      )
      const stats = buildCorpusStats(
        rows.map((row) =>
          prepareTender({
            id: "",
            title: row.title,
            description: row.description,
            mainCpv: "",
            additionalCpvs: [],
            authorityId: "",
            valueRon: null,
            cpvLabel: row.cpv_label
          })
        )
      )
      yield* Ref.set(snapshot, { stats, builtAtSeq: latestSeq })
      return stats
    })

  const current: Effect.Effect<CorpusStats, SqlError.SqlError> = Effect.gen(function* () {
    const [{ seq: latestSeq }] = yield* sql`SELECT coalesce(max(ingest_seq), 0)::text AS seq FROM tenders`.pipe(
      Effect.flatMap((rows) => Effect.orDie(decodeLatest(rows)))
    )
    const cached = yield* Ref.get(snapshot)
    if (cached !== null && latestSeq - cached.builtAtSeq <= cached.builtAtSeq * GROWTH_TO_REBUILD) return cached.stats
    return yield* build(latestSeq)
  })
  return { current }
})
