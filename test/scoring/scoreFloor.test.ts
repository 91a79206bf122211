import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SCORE_FLOOR } from "../../src/domain/scoring/ScoreFloor.js"
import { ScoringLive } from "../../src/infra/Repositories.js"
import { StoredScoreFloor } from "../../src/infra/scoring/ScoreWriter.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"
import { scoringFixtures } from "./ScoringFixtures.js"

const TestLayer = ScoringLive.pipe(Layer.provideMerge(TestDatabaseLive))

/** Runs an effect with the writer's floor at `floor`. */
const atFloor =
  (floor: number) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.provideService(effect, StoredScoreFloor, floor)

describe("score floor", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect("a pair at the floor is stored, one below it is not, and a rescore below it removes the row", () =>
      Effect.gen(function* () {
        const f = yield* scoringFixtures
        const scoring = yield* ScoringService
        const company = yield* f.company("Drumuri SA", "Reabilitare drumuri și asfaltare")
        yield* f.watchlist(company, { cpv: ["45233000-9"] })
        const tender = yield* f.tender({ title: "Reabilitare drumuri comunale", cpv: "45233142-6" })

        yield* scoring.scoreTenders([tender], { isNew: [] }).pipe(atFloor(0))
        const score = (yield* f.storedScore(company, tender))!
        expect(score).toBeGreaterThan(0)

        // Exactly at the floor: kept (rewritten in place).
        expect((yield* scoring.scoreTenders([tender], { isNew: [] }).pipe(atFloor(score))).scored).toBe(1)
        expect(yield* f.storedScore(company, tender)).toBe(score)
        // The floor one above it: the tender's rescore removes the row.
        expect((yield* scoring.scoreTenders([tender], { isNew: [] }).pipe(atFloor(score + 1))).scored).toBe(0)
        expect(yield* f.storedScore(company, tender)).toBeUndefined()
        // Back at the floor, and a company rescore above it removes it again.
        yield* scoring.rescoreCompany(company).pipe(atFloor(score))
        expect(yield* f.storedScore(company, tender)).toBe(score)
        yield* scoring.rescoreCompany(company).pipe(atFloor(score + 1))
        expect(yield* f.storedScore(company, tender)).toBeUndefined()
      })
    )

    it.effect(
      "a new tender below the floor is not stored but still alerts a watchlist whose threshold it reaches",
      () =>
        Effect.gen(function* () {
          const f = yield* scoringFixtures
          const scoring = yield* ScoringService
          const company = yield* f.company("Med SRL", "Furnizăm echipamente medicale, ecografe")
          yield* f.watchlist(company, { cpv: ["33100000-1"], minScore: 0 })
          const probe = yield* f.tender({ title: "Furnizare ecograf", cpv: "33112200-0" })
          yield* scoring.scoreTenders([probe], { isNew: [] }).pipe(atFloor(0))
          const score = (yield* f.storedScore(company, probe))!

          const tender = yield* f.tender({ title: "Furnizare ecograf", cpv: "33112200-0" })
          const result = yield* scoring.scoreTenders([tender], { isNew: [tender] }).pipe(atFloor(score + 1))
          expect(result).toEqual({ scored: 0, alerts: 1, events: 1 })
          expect(yield* f.storedScore(company, tender)).toBeUndefined()
        })
    )

    it.effect("by default the writer applies SCORE_FLOOR", () =>
      Effect.gen(function* () {
        expect(yield* StoredScoreFloor).toBe(SCORE_FLOOR)
      })
    )
  })
})
