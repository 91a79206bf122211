import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import type { Job } from "../../src/infra/queue/JobQueue.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { jobHandlers } from "../../src/workers/handlers.js"

const job = (kind: string, payload: unknown): Job => ({
  id: "1",
  kind,
  payload,
  attempts: 1,
  maxAttempts: 5,
  groupKey: null,
  lastError: null,
  workerId: "w",
  requestId: null,
  traceparent: null
})

/** Runs a registered handler against a ScoringService that records what it was asked. */
const run = (kind: string, payload: unknown) =>
  Effect.gen(function* () {
    const calls: Array<unknown> = []
    const handler = jobHandlers.find((h) => h.kind.name === kind)!
    const exit = yield* handler.run(job(kind, payload), Option.none()).pipe(
      Effect.provide(
        ScoringService.Test({
          scoreTenders: (tenderIds, options) =>
            Effect.sync(() => calls.push({ scoreTenders: tenderIds, isNew: options.isNew })).pipe(
              Effect.as({ scored: 1, alerts: 0, events: 0 })
            ),
          rescoreCompany: (companyId) =>
            Effect.sync(() => calls.push({ rescoreCompany: companyId })).pipe(Effect.as({ scored: 1 })),
          backfillModelVersion: Effect.sync(() => calls.push("backfill")).pipe(Effect.as(3))
        })
      ),
      Effect.exit
    )
    return { exit, calls }
  })

describe("scoring job handlers", () => {
  it.effect("tenders.score hands its tenders to scoring; isNew defaults to none", () =>
    Effect.gen(function* () {
      const withNew = yield* run("tenders.score", { tenderIds: ["a", "b"], isNew: ["b"] })
      expect(Exit.isSuccess(withNew.exit)).toBe(true)
      expect(withNew.calls).toEqual([{ scoreTenders: ["a", "b"], isNew: ["b"] }])
      const withoutNew = yield* run("tenders.score", { tenderIds: ["a"] })
      expect(withoutNew.calls).toEqual([{ scoreTenders: ["a"], isNew: [] }])
    })
  )

  it.effect("company.rescore rescores the company named in its payload", () =>
    Effect.gen(function* () {
      const { exit, calls } = yield* run("company.rescore", { companyId: "c1" })
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(calls).toEqual([{ rescoreCompany: "c1" }])
    })
  )

  it.effect("scores.backfill runs the model-version backfill", () =>
    Effect.gen(function* () {
      const { exit, calls } = yield* run("scores.backfill", {})
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(calls).toEqual(["backfill"])
    })
  )

  it.effect("a malformed payload fails the job (so the queue retries it) without scoring anything", () =>
    Effect.gen(function* () {
      const { exit, calls } = yield* run("company.rescore", { company: "c1" })
      expect(Exit.isFailure(exit)).toBe(true)
      expect(calls).toEqual([])
    })
  )
})
