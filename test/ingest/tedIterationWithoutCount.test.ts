import { describe, expect, layer } from "@effect/vitest"
import { Cause, Duration, Effect, Exit } from "effect"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { AuditIngestLive, firstPageForEver, TedProxy } from "./hostileSources.js"
import { publishTed, Ted } from "./ingestFixtures.js"

/**
 * `totalNoticeCount` is optional in TED's answer. Without it a poll's pages are bounded as if TED had
 * counted 15,000 notices (its window in page-number mode): an iteration that names a fresh token each
 * time and never an empty page fails the poll there, instead of paging for ever under the poll lease.
 */
describe("a TED iteration without totalNoticeCount that names a new token each time", () => {
  // Pages of 250: the bound is 15,000 / 250 + 10 = 70 pages.
  layer(AuditIngestLive({ pageSize: 250, spacing: { ted: Duration.millis(20), seap: Duration.zero } }), {
    excludeTestServices: true,
    timeout: 60_000
  })((it) => {
    it.effect("fails the poll once its pages are far past what 15,000 notices need", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const proxy = yield* TedProxy
        publishTed(ted)
        const searches = firstPageForEver(proxy, { counted: false })
        const ended = yield* (yield* TedPoller).poll.pipe(Effect.exit, Effect.timeout("30 seconds"), Effect.option)
        expect(ended._tag, `the poll was still paging after 30 s and ${searches()} searches`).toBe("Some")
        const exit = ended._tag === "Some" ? ended.value : Exit.void
        expect(Exit.isFailure(exit) ? String(Cause.squash(exit.cause)) : "success").toMatch(/iteration does not end/)
        expect(searches()).toBe(71)
        const state = (yield* (yield* IngestState).all).find((s) => s.name === "ted")
        expect(state?.cursor).toBeNull()
      })
    )
  })
})
