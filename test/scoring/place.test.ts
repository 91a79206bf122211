import { SqlClient } from "@effect/sql"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { prepareCompany, prepareTender } from "../../src/domain/scoring/Inputs.js"
import { scorePair } from "../../src/domain/scoring/Model.js"
import { inferCounties } from "../../src/domain/scoring/Place.js"
import { explainPair } from "../../src/domain/scoring/Reasons.js"
import { buildCorpusStats } from "../../src/domain/scoring/Semantic.js"
import { ROMANIAN_COUNTIES } from "../../src/domain/tenders/Counties.js"
import { canonicalCounty, countyDistance, neighboursOf } from "../../src/domain/tenders/CountyDistance.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { ScoreReasons, ScoreReasonsLive } from "../../src/infra/scoring/ScoreReasons.js"
import { StoredScoreFloor } from "../../src/infra/scoring/ScoreWriter.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { notice, watchlist } from "./TenderInputs.js"

describe("county table", () => {
  it("has the 41 counties and București, every border both ways, all connected", () => {
    expect(ROMANIAN_COUNTIES).toHaveLength(42)
    for (const county of ROMANIAN_COUNTIES) {
      expect(neighboursOf(county).size, county).toBeGreaterThan(0)
      for (const other of neighboursOf(county)) expect(neighboursOf(other).has(county), `${other}-${county}`).toBe(true)
      for (const other of ROMANIAN_COUNTIES) expect(countyDistance(county, other), `${county}-${other}`).not.toBeNull()
    }
  })

  it("counts borders crossed", () => {
    expect(countyDistance("Dolj", "Dolj")).toBe(0)
    expect(countyDistance("Dolj", "Gorj")).toBe(1)
    expect(countyDistance("București", "Ilfov")).toBe(1)
    expect(countyDistance("Dolj", "Sibiu")).toBe(2)
    expect(countyDistance("Timiș", "Tulcea")).toBeGreaterThan(4)
    expect(countyDistance("Dolj", "Narnia")).toBeNull()
  })

  it("reads counties as people and notices write them", () => {
    expect(canonicalCounty("valcea")).toBe("Vâlcea")
    expect(canonicalCounty("JUDETUL VALCEA")).toBe("Vâlcea")
    expect(canonicalCounty("Jud. Bistrita Nasaud")).toBe("Bistrița-Năsăud")
    expect(canonicalCounty("Municipiul Bucuresti")).toBe("București")
    expect(canonicalCounty("Caraş-Severin")).toBe("Caraș-Severin")
    expect(canonicalCounty("Sector 3")).toBeNull()
  })

  it("infers counties holding 20% of the awards or 3 of them", () => {
    const awards = (county: string, n: number) => Array.from({ length: n }, () => ({ county }))
    expect(inferCounties([...awards("Gorj", 6), ...awards("Vâlcea", 2), ...awards("Dolj", 1)])).toEqual([
      "Gorj",
      "Vâlcea"
    ])
    expect(inferCounties([...awards("Cluj", 20), ...awards("Alba", 3), ...awards("Arad", 2)])).toEqual(["Cluj", "Alba"])
    expect(inferCounties([{ county: null }, ...awards("Iași", 1)])).toEqual(["Iași"])
    expect(inferCounties([])).toEqual([])
  })
})

describe("place without award history (tsm-1.11.0)", () => {
  // A design office that set its county and watches design services (71322000), no fiscal code.
  const designOffice = prepareCompany({
    id: "c",
    description: "Proiectare clădiri: studii de fezabilitate, DALI, proiect tehnic",
    watchlists: [watchlist({ cpvCodes: ["71322000-1"] })],
    history: [],
    counties: ["Ialomița"]
  })
  const inIalomita = { county: "Ialomița" }
  const design = prepareTender(notice("d", "Proiect tehnic pentru reabilitare școală", "71322000-1", inIalomita))
  const furniture = prepareTender(notice("f", "Furnizare mobilier școlar", "39160000-1", inIalomita))
  const supervision = prepareTender(notice("s", "Servicii de dirigenție de șantier", "71520000-9", inIalomita))
  const farDesign = prepareTender(
    notice("x", "Proiect tehnic pentru reabilitare școală", "71322000-1", { county: "Timiș" })
  )
  const corpus = buildCorpusStats([design, furniture, supervision, farDesign])
  const historical = (t: typeof design) => scorePair(designOffice, t, corpus).factors.historical.score
  // How far a tender is of the office's trade, worked out here from its two factors.
  const tradeMatch = (t: typeof design) => {
    const factors = scorePair(designOffice, t, corpus).factors
    return Math.max(factors.cpv.score, factors.semantic.score)
  }

  it("lifts a tender near its counties as far as the tender is of its trade, by codes or words", () => {
    // Its trade in its county: the whole place share (0.35 × 1 + 0.65 × 0.5).
    expect(historical(design)).toBeCloseTo(0.675, 4)
    // Its trade far away: none of the place share (0.65 × 0.5).
    expect(historical(farDesign)).toBeCloseTo(0.325, 4)
    // Another trade in its county: no lift either, as if it were far away.
    expect(historical(furniture)).toBeCloseTo(0.325, 4)
    // Neighbouring work (another class of design services): part of it.
    const share = tradeMatch(supervision)
    expect(share).toBeGreaterThan(0)
    expect(share).toBeLessThan(1)
    expect(historical(supervision)).toBeCloseTo(0.35 * share + 0.325, 3)
  })

  it("says how much of the place counted when not all of it did", () => {
    expect(explainPair(designOffice, design, corpus).historical).toBe(
      "no fiscal code, so no award history to compare; the tender is in Ialomița, where you work"
    )
    expect(explainPair(designOffice, supervision, corpus).historical).toBe(
      `no fiscal code, so no award history to compare; the tender is in Ialomița, where you work (counted ${Math.round(tradeMatch(supervision) * 100)}%: as far as the tender is of your trade)`
    )
    expect(explainPair(designOffice, furniture, corpus, "ro").historical).toBe(
      "fără cod fiscal nu există un istoric de contracte de comparat; licitația este în Ialomița, unde lucrați (contează 0%: cât ține licitația de domeniul dumneavoastră)"
    )
    // Too far to count at all: nothing to qualify.
    expect(explainPair(designOffice, farDesign, corpus).historical).toMatch(/your county Ialomița$/)
  })
})

// Floor 0: the tests read the historical factor of pairs whose overall score may be below SCORE_FLOOR.
const TestLayer = Layer.merge(ScoringLive, ScoreReasonsLive).pipe(
  Layer.provideMerge(TestDatabaseLive),
  Layer.provideMerge(Layer.succeed(StoredScoreFloor, 0))
)

const fixtures = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`UPDATE companies SET active = false WHERE active`
  const [tenant] = yield* sql<{ id: string }>`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`
  let n = 0
  const authority = (county: string) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO contracting_authorities (name, normalized_name, county)
                          VALUES (${`Primăria ${county} ${++n}`}, ${`primaria ${county} ${n} ${Math.random()}`}, ${county}) RETURNING id`,
      (rows) => rows[0]!.id
    )
  const tender = (t: { authority: string; cpv?: string; award?: string; deadline?: string }) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO tenders (source, source_notice_id, notice_type, title, description, main_cpv,
                                               authority_id, estimated_value_ron, publish_date, deadline,
                                               winner_fiscal_codes, source_url)
        VALUES ('test', ${`p${++n}-${Math.random()}`}, ${t.award === undefined ? "contract" : "award"},
                'Reabilitare drum comunal', 'Lucrări de asfaltare', ${t.cpv ?? "45233142-6"}, ${t.authority},
                1000000, '2026-01-10T00:00:00Z', ${t.deadline ?? null}, ${t.award === undefined ? [] : [t.award]}::text[],
                'https://example.test/n')
        RETURNING id`,
      (rows) => rows[0]!.id
    )
  const company = (fiscalCode: string | null, counties: ReadonlyArray<string> | null = null) =>
    Effect.map(
      sql<{ id: string }>`INSERT INTO companies (tenant_id, name, description, fiscal_code, counties)
                          VALUES (${tenant!.id}, 'Drumuri SRL', 'reabilitare drumuri asfaltare', ${fiscalCode},
                                  ${counties}::text[]) RETURNING id`,
      (rows) => rows[0]!.id
    )
  const historical = (companyId: string, tenderId: string) =>
    Effect.map(
      sql<{ h: number }>`SELECT score_historical::float8 AS h FROM tender_scores
                         WHERE company_id = ${companyId} AND tender_id = ${tenderId}`,
      (rows) => rows[0]!.h
    )
  return { sql, tenant: tenant!.id, authority, tender, company, historical }
})

describe("place in the historical factor (PostgreSQL)", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("counties inferred from awards: nearer tenders score higher, and the reason names the counties", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const scoring = yield* ScoringService
        const reasons = yield* ScoreReasons
        const gorj = yield* f.authority("Gorj")
        const valcea = yield* f.authority("Vâlcea")
        const awards = [
          yield* f.tender({ authority: gorj, award: "11223344" }),
          yield* f.tender({ authority: gorj, award: "11223344" }),
          yield* f.tender({ authority: valcea, award: "11223344" })
        ]
        const company = yield* f.company("11223344")
        const inGorj = yield* f.tender({ authority: yield* f.authority("Gorj") })
        const inDolj = yield* f.tender({ authority: yield* f.authority("Dolj") })
        const inTeleorman = yield* f.tender({ authority: yield* f.authority("Teleorman") })
        const inTulcea = yield* f.tender({ authority: yield* f.authority("Tulcea") })
        const contracts = [inGorj, inDolj, inTeleorman, inTulcea]
        // The company's own awards first (they make its history), then the contract notices.
        yield* scoring.scoreTenders(awards, { isNew: [] })
        yield* scoring.scoreTenders(contracts, { isNew: [] })
        const [gorjH, doljH, teleormanH, tulceaH] = yield* Effect.forEach(contracts, (t) => f.historical(company, t))
        expect(gorjH).toBeGreaterThan(doljH!)
        expect(doljH).toBeGreaterThan(teleormanH!)
        expect(teleormanH).toBeGreaterThan(tulceaH!)

        const en = yield* reasons.reasonsFor(company, contracts, "en")
        expect(en.get(inGorj)!.historical).toContain("the tender is in Gorj, where you work")
        expect(en.get(inDolj)!.historical).toBe(
          "won 3 contracts: none from this authority, 3 in class 4523; Dolj borders Gorj, Vâlcea, where you won contracts"
        )
        expect(en.get(inTeleorman)!.historical).toContain(
          "; Teleorman is 2 counties from Vâlcea, where you won contracts"
        )
        expect(en.get(inTulcea)!.historical).toMatch(
          /; Tulcea is \d counties from (Gorj|Vâlcea|Gorj, Vâlcea), where you won/
        )
        const ro = yield* reasons.reasonsFor(company, contracts, "ro")
        expect(ro.get(inDolj)!.historical).toContain(
          "; Dolj se învecinează cu Gorj, Vâlcea, unde ați câștigat contracte"
        )
        expect(ro.get(inGorj)!.historical).toContain("; licitația este în Gorj, unde lucrați")
      })
    )

    it.effect("counties set on the company win over inferred ones, and count without any award history", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const scoring = yield* ScoringService
        const reasons = yield* ScoreReasons
        const company = yield* f.company(null, ["Constanța"])
        // Road works watched: the tenders below are of its trade, so their place counts whole (tsm-1.11.0).
        yield* f.sql`INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score)
                     VALUES (${f.tenant}, ${company}, 'Drumuri', '{45233142-6}', '{}', 0)`
        const near = yield* f.tender({ authority: yield* f.authority("Constanța") })
        const far = yield* f.tender({ authority: yield* f.authority("Bihor") })
        const unknown = yield* f.tender({ authority: yield* f.authority("Atlantis") })
        yield* scoring.scoreTenders([near, far, unknown], { isNew: [] })
        expect(yield* f.historical(company, near)).toBeGreaterThan(0.5)
        expect(yield* f.historical(company, far)).toBeLessThan(0.5)
        expect(yield* f.historical(company, unknown)).toBe(0.5)
        const en = yield* reasons.reasonsFor(company, [near, far, unknown], "en")
        expect(en.get(far)!.historical).toMatch(
          /^no fiscal code, so no award history to compare; Bihor is \d counties from your county Constanța$/
        )
        expect(en.get(unknown)!.historical).toBe("no fiscal code, so no award history to compare")
        const ro = yield* reasons.reasonsFor(company, [far], "ro")
        expect(ro.get(far)!.historical).toMatch(/Bihor este la \d județe de județul în care lucrați, Constanța$/)
      })
    )

    it.effect("a county-limited watchlist alerts only for tenders in its counties", () =>
      Effect.gen(function* () {
        const f = yield* fixtures
        const scoring = yield* ScoringService
        const company = yield* f.company(null)
        const [limited] = yield* f.sql<{ id: string }>`
          INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, keywords, min_score, counties)
          VALUES (${f.tenant}, ${company}, 'Sud', '{45233142-6}', '{}', 0, '{Dolj,Gorj}') RETURNING id`
        const inside = yield* f.tender({ authority: yield* f.authority("Dolj") })
        const outside = yield* f.tender({ authority: yield* f.authority("Cluj") })
        const noCounty = yield* f.tender({ authority: yield* f.authority("Atlantis") })
        const result = yield* scoring.scoreTenders([inside, outside, noCounty], { isNew: [inside, outside, noCounty] })
        expect(result.alerts).toBe(1)
        const alerts = yield* f.sql<{ tender_id: string; watchlist_id: string }>`
          SELECT tender_id, watchlist_id FROM alerts WHERE watchlist_id = ${limited!.id}`
        expect(alerts.map((a) => a.tender_id)).toEqual([inside])
        const events = yield* f.sql<{
          tender_id: string
        }>`SELECT tender_id FROM match_events WHERE company_id = ${company}`
        expect(events.map((e) => e.tender_id)).toEqual([inside])
      })
    )
  })
})
