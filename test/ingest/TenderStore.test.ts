import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import { readTenders } from "../../src/domain/tenders/formats/ImportFormat.js"
import { normalizeTenderRecord, type Tender, type TenderRecordInput } from "../../src/domain/tenders/TenderRecord.js"
import { TenderStore, TenderStoreLive } from "../../src/infra/tenders/TenderStore.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { cpvCatalog, fixture } from "./support.js"

const record = (overrides: Partial<TenderRecordInput> = {}): TenderRecordInput => ({
  source: "store-test",
  source_id: "T-1",
  title: "Servicii de mentenanță",
  description: "Mentenanță sisteme informatice",
  cpv_codes: ["72260000-5", "72230000-6"],
  contracting_authority: { name: "Primăria Municipiului Cluj-Napoca", fiscal_code: "RO4305857", county: "Cluj" },
  deadline: "2026-12-15T08:00:00Z",
  estimated_value_eur: 100000,
  publish_date: "2026-11-20T07:00:00Z",
  source_url: "https://example.test/t-1",
  ...overrides
})
const tender = (overrides: Partial<TenderRecordInput> = {}): Tender =>
  Either.getOrThrow(normalizeTenderRecord(cpvCatalog, record(overrides)))

interface TenderRow {
  id: string
  ingest_seq: string
  title: string
  main_cpv: string
  additional_cpvs: Array<string>
  authority_id: string
  estimated_value_ron: string
  estimated_value_eur: string
  winner_fiscal_codes: Array<string>
  notice_type: string
}

const tenderRow = (source: string, sourceId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<TenderRow>`
      SELECT id, ingest_seq::text, title, main_cpv, additional_cpvs, authority_id, estimated_value_ron::text,
             estimated_value_eur::text, winner_fiscal_codes, notice_type
      FROM tenders WHERE source = ${source} AND source_notice_id = ${sourceId}`
  ).pipe(Effect.map((rows) => rows[0]!))

const count = (table: "tenders" | "contracting_authorities", source?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    table === "tenders"
      ? sql<{ n: number }>`SELECT count(*)::int AS n FROM tenders WHERE source = ${source ?? ""}`
      : sql<{ n: number }>`SELECT count(*)::int AS n FROM contracting_authorities`
  ).pipe(Effect.map((rows) => rows[0]!.n))

layer(TenderStoreLive.pipe(Layer.provideMerge(TestDatabaseLive)), { timeout: 60_000 })("TenderStore", (it) => {
  it.effect("inserts a tender whole: arrays, values, authority with its county", () =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      const result = yield* store.upsert([tender({ source: "insert", winner_fiscal_codes: ["RO 22505268"] })])
      expect(result.inserted).toHaveLength(1)
      expect(result.updated).toEqual([])
      expect(result.failed).toEqual([])
      const row = yield* tenderRow("insert", "T-1")
      expect(row.id).toBe(result.inserted[0])
      expect(row).toMatchObject({
        title: "Servicii de mentenanță",
        main_cpv: "72260000-5",
        additional_cpvs: ["72230000-6"],
        estimated_value_eur: "100000.00",
        estimated_value_ron: "497000.00",
        winner_fiscal_codes: ["22505268"],
        notice_type: "award"
      })
      const sql = yield* SqlClient.SqlClient
      const [authority] = yield* sql<{ name: string; fiscal_code: string; county: string; normalized_name: string }>`
        SELECT name, fiscal_code, county, normalized_name FROM contracting_authorities WHERE id = ${row.authority_id}`
      expect(authority).toEqual({
        name: "Primăria Municipiului Cluj-Napoca",
        fiscal_code: "4305857",
        county: "Cluj",
        normalized_name: "primaria municipiului cluj napoca"
      })
    })
  )

  it.effect("re-importing a notice updates it in place: same id, same ingest_seq, new fields, no duplicate", () =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      const first = yield* store.upsert([
        tender({ source: "reimport" }),
        tender({ source: "reimport", source_id: "T-2" })
      ])
      expect(first.inserted).toHaveLength(2)
      const before = yield* tenderRow("reimport", "T-1")

      const second = yield* store.upsert([
        tender({ source: "reimport", title: "Servicii de mentenanță (rectificat)", estimated_value_eur: 120000 })
      ])
      expect(second.inserted).toEqual([])
      expect(second.updated).toEqual([before.id])
      const after = yield* tenderRow("reimport", "T-1")
      expect(after.id).toBe(before.id)
      expect(after.ingest_seq).toBe(before.ingest_seq)
      expect(after.title).toBe("Servicii de mentenanță (rectificat)")
      expect(after.estimated_value_eur).toBe("120000.00")
      expect(yield* count("tenders", "reimport")).toBe(2)
    })
  )

  it.effect("deduplicates authorities by fiscal code, else by normalised name, and fills a missing county", () =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      const authoritiesBefore = yield* count("contracting_authorities")
      const result = yield* store.upsert([
        tender({
          source: "dedup",
          source_id: "A",
          contracting_authority: { name: "Spitalul Județean Constanța", fiscal_code: "4301103" }
        }),
        tender({
          source: "dedup",
          source_id: "B",
          contracting_authority: { name: "SPITALUL JUDETEAN CONSTANTA", fiscal_code: "RO 4301103", county: "Constanța" }
        }),
        tender({ source: "dedup", source_id: "C", contracting_authority: { name: "Primăria Comunei Valea Mare" } }),
        tender({ source: "dedup", source_id: "D", contracting_authority: { name: "PRIMARIA COMUNEI VALEA-MARE" } })
      ])
      expect(result.inserted).toHaveLength(4)
      // Another chunk later: the same two authorities again, one with a county now.
      yield* store.upsert([
        tender({
          source: "dedup",
          source_id: "E",
          contracting_authority: { name: "Primaria comunei Valea Mare", county: "Vâlcea" }
        })
      ])
      expect(yield* count("contracting_authorities")).toBe(authoritiesBefore + 2)
      const [a, b, c, d, e] = yield* Effect.forEach(["A", "B", "C", "D", "E"], (id) => tenderRow("dedup", id))
      expect(b!.authority_id).toBe(a!.authority_id)
      expect(d!.authority_id).toBe(c!.authority_id)
      expect(e!.authority_id).toBe(c!.authority_id)
      expect(c!.authority_id).not.toBe(a!.authority_id)
      const sql = yield* SqlClient.SqlClient
      const counties = yield* sql<{ county: string }>`
        SELECT county FROM contracting_authorities WHERE id IN (${a!.authority_id}, ${c!.authority_id}) ORDER BY county`
      expect(counties.map((r) => r.county)).toEqual(["Constanța", "Vâlcea"])
    })
  )

  it.effect("the same notice twice in one batch is stored once: one insert, one update", () =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      const result = yield* store.upsert([
        tender({ source: "twice", title: "Prima versiune" }),
        tender({ source: "twice", title: "A doua versiune" })
      ])
      expect(result.inserted).toHaveLength(1)
      expect(result.updated).toEqual(result.inserted)
      expect((yield* tenderRow("twice", "T-1")).title).toBe("A doua versiune")
      expect(yield* count("tenders", "twice")).toBe(1)
    })
  )

  it.effect("a tender the database refuses is reported; the rest of its chunk is stored", () =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      // PostgreSQL text cannot hold a NUL character: the whole statement fails, then each tender is retried.
      const result = yield* store.upsert([
        tender({ source: "refused", source_id: "ok-1" }),
        tender({ source: "refused", source_id: "bad", title: "NUL \u0000 inside" }),
        tender({ source: "refused", source_id: "ok-2" })
      ])
      expect(result.inserted).toHaveLength(2)
      expect(result.failed.map((f) => f.tender.sourceNoticeId)).toEqual(["bad"])
      expect(result.failed[0]!.reason).toMatch(/database refused it/)
      expect(yield* count("tenders", "refused")).toBe(2)
    })
  )

  it.effect("stores thousands of tenders in chunks, and a re-import of them all is updates only", () =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      const many = Array.from({ length: 2_000 }, (_, i) =>
        tender({
          source: "bulk",
          source_id: `B-${i}`,
          contracting_authority: { name: `Primăria ${i % 300}`, fiscal_code: String(1_000_000 + (i % 300)) }
        })
      )
      const started = Date.now()
      const first = yield* store.upsert(many)
      const insertMs = Date.now() - started
      expect(first.inserted).toHaveLength(2_000)
      expect(new Set(first.inserted).size).toBe(2_000)
      const again = yield* store.upsert(many)
      expect(again.inserted).toEqual([])
      expect(new Set(again.updated)).toEqual(new Set(first.inserted))
      expect(yield* count("tenders", "bulk")).toBe(2_000)
      console.log(`TenderStore: 2000 tenders inserted in ${insertMs} ms`)
    })
  )

  it.effect("two imports of the same notices at once store each notice once, with no refused tender", () =>
    Effect.gen(function* () {
      const store = yield* TenderStore
      const batch = Array.from({ length: 300 }, (_, i) =>
        tender({
          source: "concurrent",
          source_id: `C-${i}`,
          contracting_authority: { name: `Spital ${i % 40}`, fiscal_code: String(3_000_000 + (i % 40)) }
        })
      )
      const [a, b] = yield* Effect.all([store.upsert(batch), store.upsert([...batch].reverse())], {
        concurrency: 2
      })
      expect([...a.failed, ...b.failed]).toEqual([])
      expect(a.inserted.length + b.inserted.length).toBe(300)
      expect(new Set([...a.inserted, ...b.inserted]).size).toBe(300)
      expect(yield* count("tenders", "concurrent")).toBe(300)
    })
  )

  it.effect("reads the CPV catalog from the reference table", () =>
    Effect.gen(function* () {
      const catalog = yield* (yield* TenderStore).cpvCatalog
      expect(catalog.size).toBe(9454)
      expect(catalog.get("03300000")).toBe("03300000-2")
    })
  )

  it.effect(
    "an eForms change notice keeps the original's publication date, and an older version read after it changes nothing",
    () =>
      Effect.gen(function* () {
        const store = yield* TenderStore
        const sql = yield* SqlClient.SqlClient
        const eforms = (file: string) => readTenders(fixture(`eforms/${file}`), "eforms", cpvCatalog).tenders[0]!
        // The real pair: the notice issued 2020-02-28, its change (new dates) issued 2020-04-17.
        const original = { ...eforms("cn_24_open.xml"), source: "versions" }
        const change = { ...eforms("change-cn_24_open_dates.xml"), source: "versions" }
        expect(change.sourceNoticeId).toBe(original.sourceNoticeId)
        expect(change.deadline!.getTime()).not.toBe(original.deadline!.getTime())
        expect(change.publishDate.getTime()).toBeGreaterThan(original.publishDate.getTime())
        const stored = () =>
          sql<{ deadline: Date; publish_date: Date; source_issued_at: Date }>`
            SELECT deadline, publish_date, source_issued_at FROM tenders
            WHERE source = 'versions' AND source_notice_id = ${original.sourceNoticeId}`.pipe(
            Effect.map((rows) => rows[0]!)
          )
        const changed = {
          deadline: change.deadline,
          publish_date: original.publishDate,
          source_issued_at: change.issuedAt
        }

        // In order: the change moves the deadline, not the publication date.
        const first = yield* store.upsert([original])
        expect(first.inserted).toHaveLength(1)
        expect(yield* stored()).toEqual({
          deadline: original.deadline,
          publish_date: original.publishDate,
          source_issued_at: original.issuedAt
        })
        yield* store.upsert([change])
        expect(yield* stored()).toEqual(changed)
        // The original read again (a re-import, a retried read): the change stays.
        const again = yield* store.upsert([original])
        expect(again.updated).toEqual(first.inserted)
        expect(yield* stored()).toEqual(changed)
        // The change read again is the same version: nothing moves either.
        yield* store.upsert([change])
        expect(yield* stored()).toEqual(changed)

        // The other order: the change first (its own publication date, the only one known), then the original.
        yield* sql`DELETE FROM tenders WHERE source = 'versions'`
        yield* store.upsert([change])
        expect(yield* stored()).toEqual({ ...changed, publish_date: change.publishDate })
        yield* store.upsert([original])
        expect(yield* stored()).toEqual(changed)
      })
  )

  it.effect(
    "an original and its change in one batch, in either order: the change's fields, the original's publication date",
    () =>
      Effect.gen(function* () {
        const store = yield* TenderStore
        const sql = yield* SqlClient.SqlClient
        const eforms = (file: string) => readTenders(fixture(`eforms/${file}`), "eforms", cpvCatalog).tenders[0]!
        const original = { ...eforms("cn_24_open.xml"), source: "one-batch" }
        const change = { ...eforms("change-cn_24_open_dates.xml"), source: "one-batch" }
        // A file holding both versions, a poll catching up on both, a retried original read after its change.
        for (const batch of [
          [original, change],
          [change, original]
        ]) {
          yield* sql`DELETE FROM tenders WHERE source = 'one-batch'`
          const result = yield* store.upsert(batch)
          expect(result.inserted).toHaveLength(1)
          const rows = yield* sql<{ deadline: Date; publish_date: Date; source_issued_at: Date }>`
            SELECT deadline, publish_date, source_issued_at FROM tenders WHERE source = 'one-batch'`
          expect(rows).toEqual([
            { deadline: change.deadline, publish_date: original.publishDate, source_issued_at: change.issuedAt }
          ])
        }
      })
  )

  it.effect(
    "a change of a change (naming the first change, not the original) updates the original's tender, batch after batch or in one",
    () =>
      Effect.gen(function* () {
        const store = yield* TenderStore
        const sql = yield* SqlClient.SqlClient
        const versions = (source: string) => {
          const version = (issued: string, deadline: string, sourceId: string, versionId?: string) =>
            tender({ source, source_id: sourceId, issued_at: issued, deadline, version_id: versionId ?? null })
          return [
            version("2026-11-20T07:00:00Z", "2026-12-15T08:00:00Z", "original"),
            version("2026-11-25T07:00:00Z", "2026-12-20T08:00:00Z", "original", "change-1"),
            version("2026-11-28T07:00:00Z", "2026-12-22T08:00:00Z", "change-1", "change-2"),
            version("2026-11-30T07:00:00Z", "2026-12-29T08:00:00Z", "change-2", "change-3")
          ]
        }
        const stored = (source: string) =>
          sql<{ source_notice_id: string; deadline: Date }>`
            SELECT source_notice_id, deadline FROM tenders WHERE source = ${source}`
        const last = [{ source_notice_id: "original", deadline: new Date("2026-12-29T08:00:00Z") }]
        const inserted: Array<string> = []
        for (const version of versions("chain")) inserted.push(...(yield* store.upsert([version])).inserted)
        expect(inserted).toHaveLength(1)
        expect(yield* stored("chain")).toEqual(last)
        // One file holding the whole chain, the later changes first.
        const result = yield* store.upsert(versions("chain-file").reverse())
        expect(result.inserted).toHaveLength(1)
        expect(yield* stored("chain-file")).toEqual(last)
      })
  )

  it.effect(
    "without a version (every other format), the notice read last wins, but for the earliest publication date",
    () =>
      Effect.gen(function* () {
        const store = yield* TenderStore
        yield* store.upsert([tender({ source: "undated", title: "Prima versiune" })])
        yield* store.upsert([
          tender({ source: "undated", title: "A doua versiune", publish_date: "2026-11-01T07:00:00Z" })
        ])
        const sql = yield* SqlClient.SqlClient
        const [row] = yield* sql<{ title: string; publish_date: Date }>`
        SELECT title, publish_date FROM tenders WHERE source = 'undated'`
        expect(row).toEqual({ title: "A doua versiune", publish_date: new Date("2026-11-01T07:00:00Z") })
        // A later date read again (SEAP's state date, moved by an erratum) leaves the publication date.
        yield* store.upsert([tender({ source: "undated", title: "Eratată", publish_date: "2026-11-24T07:00:00Z" })])
        const [erratum] = yield* sql<{ title: string; publish_date: Date }>`
        SELECT title, publish_date FROM tenders WHERE source = 'undated'`
        expect(erratum).toEqual({ title: "Eratată", publish_date: new Date("2026-11-01T07:00:00Z") })
        // A dated version after an undated one applies; an older dated one after it does not.
        yield* store.upsert([tender({ source: "undated", title: "Datată", issued_at: "2026-11-10T00:00:00Z" })])
        yield* store.upsert([tender({ source: "undated", title: "Mai veche", issued_at: "2026-11-09T00:00:00Z" })])
        expect((yield* tenderRow("undated", "T-1")).title).toBe("Datată")
      })
  )
})
