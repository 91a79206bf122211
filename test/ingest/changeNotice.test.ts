import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { drainDueJobs } from "../../src/infra/queue/JobRunner.js"
import { scoringJobHandlers } from "../../src/infra/scoring/ScoringJobs.js"
import { makeSecretBox, SecretBox } from "../../src/infra/webhooks/SecretBox.js"
import { tenantWithWebhooks } from "../webhooks/fixtures.js"
import { IngestTestLive, publishTed, Ted } from "./ingestFixtures.js"

const TestLayer = Layer.merge(IngestTestLive(), Layer.succeed(SecretBox, makeSecretBox(Buffer.alloc(32, 7))))

/** Polls TED once and runs the scoring jobs it queued, as a worker would. */
const pollAndScore = Effect.gen(function* () {
  yield* (yield* TedPoller).poll
  yield* drainDueJobs(scoringJobHandlers, {
    name: "jobs",
    concurrency: 1,
    lease: Duration.minutes(1),
    pollEvery: Duration.seconds(1)
  })
})

describe("a change notice rescored", () => {
  layer(TestLayer, { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("alerts only where its verdict rose; the same verdict again alerts nobody", () =>
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const ted = yield* Ted
        // A company watching school furniture (CPV 39160000-1, threshold 0).
        const tenant = yield* tenantWithWebhooks({ webhooks: [] })
        const company = tenant.companies[0]!
        const alertsOf = (tenderId: string) =>
          sql`SELECT id FROM alerts WHERE tender_id = ${tenderId} AND company_id = ${company}`
        const events = (tenderId: string) =>
          sql`SELECT id FROM match_events WHERE tender_id = ${tenderId} AND company_id = ${company}`

        // Published as IT maintenance: not this company's work, no alert.
        const original = publishTed(ted, { title: "Servicii de mentenanță a rețelei informatice", cpv: "72267000" })
        yield* pollAndScore
        const [tender] = yield* sql<{ id: string }>`
          SELECT id FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${original.noticeId}`
        expect(yield* alertsOf(tender!.id)).toHaveLength(0)

        // Corrected to school furniture: the verdict rises from none, so it alerts and raises the event.
        publishTed(ted, {
          changes: { changedNoticeId: original.noticeId },
          title: "Furnizare mobilier școlar pentru liceul teoretic",
          cpv: "39160000"
        })
        yield* pollAndScore
        expect(yield* alertsOf(tender!.id)).toHaveLength(1)
        expect(yield* events(tender!.id)).toHaveLength(1)
        const [scored] = yield* sql<{ verdict: string }>`
          SELECT verdict FROM tender_scores WHERE tender_id = ${tender!.id} AND company_id = ${company}`
        expect(scored).toBeDefined()

        // A second change that moves only the deadline: rescored, same verdict, nothing new.
        publishTed(ted, {
          changes: { changedNoticeId: original.noticeId },
          title: "Furnizare mobilier școlar pentru liceul teoretic",
          cpv: "39160000",
          deadline: "2027-01-15"
        })
        yield* pollAndScore
        const [rescored] = yield* sql<{ verdict: string }>`
          SELECT verdict FROM tender_scores WHERE tender_id = ${tender!.id} AND company_id = ${company}`
        expect(rescored?.verdict).toBe(scored!.verdict)
        expect(yield* alertsOf(tender!.id)).toHaveLength(1)
        expect(yield* events(tender!.id)).toHaveLength(1)
        const [deadline] = yield* sql<{ deadline: Date }>`SELECT deadline FROM tenders WHERE id = ${tender!.id}`
        expect(deadline!.deadline.toISOString().slice(0, 10)).toBe("2027-01-15")
      })
    )
  })
})
