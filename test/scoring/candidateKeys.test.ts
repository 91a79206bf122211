import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { codeMatch, tenderCpvKeys, watchedCpvKey } from "../../src/domain/scoring/CpvMatch.js"
import { CANDIDATE_MIN_CPV } from "../../src/domain/scoring/Matching.js"
import { indexKey, STOP_WORDS, words } from "../../src/domain/scoring/Text.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/**
 * The candidate prefilter's keys are computed twice: in SQL, as stored columns (migration 0013),
 * and in TypeScript for the tenders it looks them up for. These tests keep the two equal, and the
 * CPV keys a superset of the candidate rule over the real CPV table.
 */
describe("candidate keys", () => {
  layer(TestDatabaseLive)((it) => {
    it.effect("a watched CPV code's key in SQL equals the domain's, for every code of the CPV table", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ code: string; keys: Array<string> }>`
          SELECT code_full AS code, scoring_cpv_keys(ARRAY[code_full]::char(10)[]) AS keys FROM cpv_codes`
        expect(rows.length).toBeGreaterThan(9000)
        const different = rows.filter((row) => row.keys.length !== 1 || row.keys[0] !== watchedCpvKey(row.code))
        expect(different).toEqual([])
      })
    )

    it.effect("CPV keys meet whenever the tender code reaches the candidate score (sampled over the table)", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const codes = (yield* sql<{ code: string }>`SELECT code_full AS code FROM cpv_codes ORDER BY code_full`).map(
          (r) => r.code
        )
        // Every pair within a division (where all candidate matches lie), every 7th tender code.
        let candidates = 0
        const missed: Array<string> = []
        for (let t = 0; t < codes.length; t += 7) {
          const tender = codes[t]!
          const keys = new Set(tenderCpvKeys(tender))
          for (const watched of codes) {
            if (watched.slice(0, 2) !== tender.slice(0, 2)) continue
            if (codeMatch(tender, watched) < CANDIDATE_MIN_CPV) continue
            candidates++
            if (!keys.has(watchedCpvKey(watched))) missed.push(`${tender} / ${watched}`)
          }
        }
        expect(candidates).toBeGreaterThan(10_000)
        expect(missed).toEqual([])
      })
    )

    it.effect("a watchlist of several codes stores their distinct keys, and follows an update", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`
        const [company] = yield* sql<{ id: string }>`
          INSERT INTO companies (tenant_id, name, description) VALUES (${tenant!.id}, 'C', '') RETURNING id`
        const codes = ["45233120-6", "45233000-9", "45000000-7", "72200000-7"]
        const [watchlist] = yield* sql<{ id: string; cpv_keys: Array<string> }>`
          INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes)
          VALUES (${tenant!.id}, ${company!.id}, 'W', ${codes}::char(10)[]) RETURNING id, cpv_keys`
        expect(watchlist!.cpv_keys).toEqual([...new Set(codes.map(watchedCpvKey))].sort())
        expect(watchlist!.cpv_keys).toEqual(["45", "4523", "722"])
        const [updated] = yield* sql<{ cpv_keys: Array<string> }>`
          UPDATE watchlists SET cpv_codes = ARRAY['33100000-1']::char(10)[] WHERE id = ${watchlist!.id}
          RETURNING cpv_keys`
        expect(updated!.cpv_keys).toEqual(["331"])
      })
    )

    it.effect("text keys in SQL equal the domain's index keys of the content words", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const texts = [
          "Lucrări de reabilitare a drumurilor județene și comunale, covoare asfaltice",
          "SERVICII DE CURĂȚENIE pentru clădirea Școlii nr. 5",
          "Furnizare ecograf Doppler; echipamente medicale (lot 2)",
          "",
          "și de la pe"
        ]
        for (const text of texts) {
          const [row] = yield* sql<{ keys: Array<string> }>`SELECT scoring_text_keys(${text}) AS keys`
          const expected = [
            ...new Set(
              words(text)
                .filter((w) => !STOP_WORDS.has(w))
                .map(indexKey)
            )
          ].sort()
          expect(row!.keys, text).toEqual(expected)
        }
      })
    )

    it.effect("stored keys follow a company's description and an award notice's title", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'activ') RETURNING id`
        const [company] = yield* sql<{ id: string; description_keys: Array<string> }>`
          INSERT INTO companies (tenant_id, name, description)
          VALUES (${tenant!.id}, 'C', 'Asfaltare drumuri') RETURNING id, description_keys`
        expect(company!.description_keys).toEqual(["asfal", "drumu"])
        const [changed] = yield* sql<{ description_keys: Array<string> }>`
          UPDATE companies SET description = 'Canalizare' WHERE id = ${company!.id} RETURNING description_keys`
        expect(changed!.description_keys).toEqual(["canal"])

        const [authority] = yield* sql<{ id: string }>`
          INSERT INTO contracting_authorities (name, normalized_name, fiscal_code, county)
          VALUES ('Primăria X', 'primaria x', '123', 'Cluj') RETURNING id`
        const notice = (noticeType: string) =>
          sql<{ award_title_keys: Array<string> | null }>`
            INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv, authority_id,
                                 publish_date, source_url)
            VALUES ('test', ${noticeType}, ${noticeType}, 'Reparații poduri', '', '45221110-6', ${authority!.id},
                    '2026-01-10T00:00:00Z', 'https://example.test/n')
            RETURNING award_title_keys`
        // Only award notices are looked up by title (the awards a company won).
        expect((yield* notice("award"))[0]!.award_title_keys).toEqual(["podur", "repar"])
        expect((yield* notice("contract"))[0]!.award_title_keys).toBeNull()
      })
    )
  })
})
