import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { normalizeTenderRecord } from "../../src/domain/tenders/TenderRecord.js"
import { TenderStore, TenderStoreLive } from "../../src/infra/tenders/TenderStore.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { cpvCatalog } from "./support.js"

const tender = (sourceId: string) =>
  Either.getOrThrow(
    normalizeTenderRecord(cpvCatalog, {
      source: "ids-test",
      source_id: sourceId,
      title: "Lucrări de reparații drumuri",
      description: "Reparații drumuri comunale",
      cpv_codes: ["45233142-6"],
      contracting_authority: { name: "Primăria Comunei Ciugud", fiscal_code: "RO4562303", county: "Alba" },
      deadline: "2026-12-15T08:00:00Z",
      estimated_value_eur: 100000,
      publish_date: "2026-11-20T07:00:00Z",
      source_url: `https://example.test/${sourceId}`
    })
  )

/** The milliseconds since 1970 a version 7 UUID begins with (its first 48 bits). */
const millisOf = (id: string) => Number.parseInt(id.replaceAll("-", "").slice(0, 12), 16)

// Migration 0039: new tenders (and the alerts, events and deliveries of their scoring) get version 7
// ids, so bulk inserts go to the right-hand edge of the indexes that lead with them.
layer(TenderStoreLive.pipe(Layer.provideMerge(TestDatabaseLive)), { timeout: 60_000 })("time-ordered ids", (it) => {
  it.effect("a new tender's id is a version 7 UUID of the moment it was stored, after those stored before it", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const store = yield* TenderStore
      const [{ now: before }] = yield* sql<{
        now: string
      }>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS now`
      const first = yield* store.upsert([tender("A-1"), tender("A-2")])
      // The ids read the database's clock: the second import comes a few real milliseconds later.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 5)))
      const second = yield* store.upsert([tender("B-1")])
      const [{ now: after }] = yield* sql<{
        now: string
      }>`SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS now`

      const ids = [...first.inserted, ...second.inserted]
      expect(ids).toHaveLength(3)
      for (const id of ids) {
        // Version nibble 7, RFC 9562 variant (10xx).
        expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        expect(millisOf(id)).toBeGreaterThanOrEqual(Number(before))
        expect(millisOf(id)).toBeLessThanOrEqual(Number(after))
      }
      // The later import's tender sorts after the earlier ones, as PostgreSQL compares uuids.
      const [{ later }] = yield* sql<{ later: boolean }>`
        SELECT ${second.inserted[0]!}::uuid > ALL(${first.inserted}::uuid[]) AS later`
      expect(later).toBe(true)
      // Ids are still unique and random past the timestamp.
      expect(new Set(ids.map((id) => id.slice(14))).size).toBe(3)
    })
  )

  it.effect("alerts, match events and webhook deliveries default to version 7 ids on every partition", () =>
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ table_name: string; column_default: string }>`
        SELECT table_name::text, column_default::text FROM information_schema.columns
        WHERE column_name = 'id' AND table_schema = 'public'
          AND (table_name IN ('tenders', 'alerts', 'match_events', 'webhook_deliveries')
               OR table_name LIKE 'alerts\\_%' OR table_name LIKE 'match\\_events\\_%')`
      const tables = new Set(rows.map((row) => row.table_name))
      expect(tables).toEqual(
        expect.objectContaining(new Set(["tenders", "alerts", "match_events", "webhook_deliveries"]))
      )
      expect(rows.length).toBeGreaterThan(4)
      for (const row of rows) expect(row, row.table_name).toMatchObject({ column_default: "uuid_v7()" })
      const [{ id }] = yield* sql<{ id: string }>`SELECT uuid_v7()::text AS id`
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    })
  )
})
