import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import { FetchHttpClient } from "@effect/platform"
import { Context, Duration, Effect, Layer } from "effect"
import { bucharestDate } from "../../src/domain/BucharestTime.js"
import { addDays } from "../../src/domain/ingest/PublicationDays.js"
import { IngestConfig, type IngestConfigShape } from "../../src/infra/ingest/IngestConfig.js"
import { NoticeIntakeLive } from "../../src/infra/ingest/NoticeIntake.js"
import { SeapPollerLive } from "../../src/infra/ingest/SeapPoller.js"
import { TedPollerLive } from "../../src/infra/ingest/TedPoller.js"
import { type FakeSeap, startFakeSeap } from "../support/FakeSeap.js"
import { eformsNoticeXml, type FakeTed, startFakeTed } from "../support/FakeTed.js"
import { TestInfraLive } from "../support/TestServer.js"

/** The fake TED this test file's pollers read. */
export class Ted extends Context.Tag("test/FakeTed")<Ted, FakeTed>() {}
export const FakeTedLive = Layer.scoped(
  Ted,
  Effect.acquireRelease(
    Effect.promise(() => startFakeTed()),
    (ted) => Effect.promise(() => ted.close())
  )
)

/** The fake SEAP this test file's pollers read. */
export class Seap extends Context.Tag("test/FakeSeap")<Seap, FakeSeap>() {}
export const FakeSeapLive = Layer.scoped(
  Seap,
  Effect.acquireRelease(
    Effect.promise(() => startFakeSeap()),
    (seap) => Effect.promise(() => seap.close())
  )
)

/** Ingestion pointed at the fakes, polling fast, requests spaced by `spacingMs`. */
export const TestIngestConfig = (overrides: Partial<IngestConfigShape> = {}) =>
  Layer.effect(
    IngestConfig,
    Effect.gen(function* () {
      const ted = yield* Ted
      const seap = yield* Seap
      return {
        sources: ["ted", "seap"],
        tedApiUrl: ted.url,
        seapApiUrl: seap.url,
        pollEvery: Duration.seconds(1),
        spacing: { ted: Duration.zero, seap: Duration.zero },
        pageSize: 100,
        // The daily revisit of past days' lists asks 14 more lists: on only where a test wants it.
        seapRevisitDays: 0,
        userAgent: "TenderScoringService/0.1 (+http://127.0.0.1 test)",
        ...overrides
      }
    })
  )

/** Both pollers and the intake over a fresh database, with both fakes. */
export const IngestTestLive = (overrides: Partial<IngestConfigShape> = {}) =>
  Layer.merge(TedPollerLive, SeapPollerLive).pipe(
    Layer.provideMerge(NoticeIntakeLive),
    Layer.provideMerge(TestIngestConfig(overrides)),
    Layer.provideMerge(Layer.mergeAll(FakeTedLive, FakeSeapLive)),
    Layer.provideMerge(FetchHttpClient.layer),
    Layer.provideMerge(TestInfraLive())
  )

export const today = () => bucharestDate(Date.now())
export const daysAgo = (days: number) => addDays(today(), -days)

let published = 0

/** Publishes a real eForms notice at the fake TED; its fields, with the ids the test needs. */
export const publishTed = (ted: FakeTed, fields: Partial<Parameters<typeof eformsNoticeXml>[0]> = {}) => {
  published++
  const notice = {
    noticeId: randomUUID(),
    publicationNumber: `${String(700000 + published).padStart(8, "0")}-2026`,
    publicationDate: today(),
    title: `Servicii de mentenanță a sistemelor informatice ${published}`,
    cpv: "72267000",
    buyerFiscalCode: "4267117",
    buyerNuts: "RO321",
    estimatedValue: 250000,
    deadline: addDays(today(), 30),
    ...fields
  }
  ted.publish({
    publicationNumber: notice.publicationNumber,
    publicationDate: notice.publicationDate,
    xml: eformsNoticeXml(notice)
  })
  return notice
}

const AWARD_SAMPLE = fs.readFileSync(
  new URL("../fixtures/eforms/can_24_minimal-ro-winner.synthetic.xml", import.meta.url),
  "utf8"
)

/**
 * Publishes a real eForms contract award notice at the fake TED (the sample whose winner is the
 * Romanian firm RO 22505268), under a notice id of its own; the publication number is the test's.
 */
/**
 * One procedure as both sources publish it (a county hospital's network maintenance): the fields of
 * its TED eForms notice and of its SEAP notice (without the deadline's time), which the intake joins.
 */
export const hospitalMaintenance = (deadline: string) => ({
  ted: {
    title: "Servicii de mentenanță a rețelei informatice a spitalului",
    cpv: "72267000",
    buyerFiscalCode: "4301103",
    estimatedValue: 480000,
    deadline
  },
  seap: {
    title: "SERVICII DE MENTENANTA A RETELEI INFORMATICE A SPITALULUI",
    cpv: "72267000-4 - Servicii de intretinere si reparare a software-ului (Rev.2)",
    authority: "4301103 - SPITALUL JUDETEAN",
    value: 480000,
    publicationDate: today()
  }
})

export const publishTedAward = (ted: FakeTed, publicationNumber: string) => {
  const noticeId = randomUUID()
  ted.publish({
    publicationNumber,
    publicationDate: today(),
    xml: AWARD_SAMPLE.replace("65667997-031a-4198-bd25-7225449ef479", noticeId)
  })
  return { noticeId, publicationNumber }
}
