import { SqlClient, type SqlError } from "@effect/sql"
import { Clock, Effect, Ref } from "effect"
import { affinityOf, type ClassAffinity, type CpvAffinity, learnAffinity } from "../../domain/scoring/CpvAffinity.js"
import { MODEL_VERSION } from "../../domain/scoring/Model.js"
import { arrayLiteral } from "../db/ArrayLiteral.js"

/**
 * The learned CPV affinity (domain/scoring/CpvAffinity.ts) in `cpv_class_affinity` (migration
 * 0023): recomputed from every award notice when award notices arrive, and kept in memory by each
 * scorer, reloaded when the table's revision moves. The key API's list never reads it: only
 * scoring and the reasons do.
 */
export const makeCpvAffinityTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const snapshot = yield* Ref.make<CpvAffinity | null>(null)

  /**
   * Relearns the whole table in one transaction, from the distinct (winner, CPV class) of every
   * award notice. A full recompute rather than a patch of the classes an award touched: the measure
   * depends on the number of suppliers, which every new winner changes, and the input is one
   * index-free scan of the award notices (README, "CPV affinity", for its cost). Concurrent
   * recomputes (a CLI import beside a worker) queue on an advisory lock.
   */
  const recompute: Effect.Effect<number, SqlError.SqlError> = Effect.gen(function* () {
    const computedAt = new Date(yield* Clock.currentTimeMillis)
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext('cpv_class_affinity'))`
        const wins = yield* sql<{ supplier: string; cpv_class: string }>`
          SELECT DISTINCT w.supplier, left(a.main_cpv, 4) AS cpv_class
          FROM tenders a CROSS JOIN LATERAL unnest(a.winner_fiscal_codes) AS w(supplier)
          WHERE a.notice_type = 'award' AND w.supplier <> ''`
        const learned = learnAffinity(wins.map((win) => ({ supplier: win.supplier, cpvClass: win.cpv_class })))
        const suppliers = new Set(wins.map((win) => win.supplier)).size
        yield* sql`DELETE FROM cpv_class_affinity`
        if (learned.length > 0) {
          yield* sql`
            INSERT INTO cpv_class_affinity (cpv_class, other_class, common_suppliers, class_suppliers, other_suppliers, strength)
            SELECT * FROM unnest(${arrayLiteral(learned.map((a) => a.cpvClass))}::text[],
                                 ${arrayLiteral(learned.map((a) => a.otherClass))}::text[],
                                 ${arrayLiteral(learned.map((a) => a.commonSuppliers))}::int[],
                                 ${arrayLiteral(learned.map((a) => a.classSuppliers))}::int[],
                                 ${arrayLiteral(learned.map((a) => a.otherSuppliers))}::int[],
                                 ${arrayLiteral(learned.map((a) => a.strength))}::real[])`
        }
        yield* sql`
          UPDATE cpv_affinity_state
          SET revision = revision + 1, model_version = ${MODEL_VERSION}, suppliers = ${suppliers},
              computed_at = ${computedAt.toISOString()}::timestamptz`
        return learned.length
      })
    )
  })

  /** Recomputes the table when award notices are among `tenderIds` (what an import or a poll just stored). */
  const recomputeAfter = (tenderIds: ReadonlyArray<string>) =>
    Effect.gen(function* () {
      if (tenderIds.length === 0) return
      const [awards] = yield* sql<{ any: boolean }>`
        SELECT EXISTS (SELECT 1 FROM tenders WHERE id = ANY(${tenderIds}::uuid[]) AND notice_type = 'award') AS any`
      if (awards?.any === true) yield* recompute
    })

  const load = (revision: string) =>
    sql<{
      cpv_class: string
      other_class: string
      common_suppliers: number
      class_suppliers: number
      other_suppliers: number
      strength: number
    }>`
      SELECT cpv_class, other_class, common_suppliers, class_suppliers, other_suppliers, strength::float8 AS strength
      FROM cpv_class_affinity`.pipe(
      Effect.map((rows) =>
        affinityOf(
          revision,
          rows.map(
            (row): ClassAffinity => ({
              cpvClass: row.cpv_class,
              otherClass: row.other_class,
              commonSuppliers: row.common_suppliers,
              classSuppliers: row.class_suppliers,
              otherSuppliers: row.other_suppliers,
              strength: row.strength
            })
          )
        )
      )
    )

  const state = sql<{ revision: string; model_version: string | null }>`
    SELECT revision::text AS revision, model_version FROM cpv_affinity_state`

  /** The table as stored: the cached copy while the table's revision is the one it was read at. */
  const stored: Effect.Effect<CpvAffinity, SqlError.SqlError> = Effect.gen(function* () {
    const [row] = yield* state
    const revision = row?.revision ?? "0"
    const cached = yield* Ref.get(snapshot)
    if (cached !== null && cached.revision === revision) return cached
    const loaded = yield* load(revision)
    yield* Ref.set(snapshot, loaded)
    return loaded
  })

  /**
   * The affinity a scorer uses: the stored one, but a table computed by another model version (or
   * never, right after migration 0023) is relearned first, so a model bump never scores with another
   * version's measure.
   */
  const current: Effect.Effect<CpvAffinity, SqlError.SqlError> = Effect.gen(function* () {
    const [row] = yield* state
    if (row !== undefined && row.model_version !== MODEL_VERSION) yield* recompute
    return yield* stored
  })

  return { recompute, recomputeAfter, current, stored }
})

export type CpvAffinityTable = Effect.Effect.Success<typeof makeCpvAffinityTable>
