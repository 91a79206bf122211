import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bestCpvMatchOf, codeSetOf, cpvMatchReaches } from "../../src/domain/scoring/CpvMatch.js"
import { CANDIDATE_MIN_CPV } from "../../src/domain/scoring/Matching.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/** Deterministic PRNG (mulberry32). */
const prng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The candidate rule's early-exit CPV test must answer exactly as the scorer's best match. */
describe("the candidate rule's CPV test", () => {
  layer(TestDatabaseLive)((it) => {
    it.effect("cpvMatchReaches answers as the best match's score does (sampled over the CPV table)", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const codes = (yield* sql<{ code: string }>`SELECT code_full AS code FROM cpv_codes ORDER BY code_full`).map(
          (r) => r.code
        )
        const random = prng(23)
        const pick = () => codes[Math.floor(random() * codes.length)]!
        let reached = 0
        const different: Array<string> = []
        for (let n = 0; n < 20_000; n++) {
          const main = pick()
          // Same division as the main code half of the time, where matches lie.
          const near = () => (random() < 0.5 ? pick() : (codes.find((c) => c.startsWith(main.slice(0, 3))) ?? pick()))
          const tender = codeSetOf(random() < 0.4 ? [main, near()] : [main])
          const profile = codeSetOf(Array.from({ length: 1 + Math.floor(random() * 4) }, near))
          const best = bestCpvMatchOf(tender, profile).score >= CANDIDATE_MIN_CPV
          if (best) reached++
          if (cpvMatchReaches(tender, profile, CANDIDATE_MIN_CPV) !== best)
            different.push(`${tender.written} / ${profile.written}`)
        }
        expect(reached).toBeGreaterThan(1_000)
        expect(different).toEqual([])
      })
    )
  })
})
