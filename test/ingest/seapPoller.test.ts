import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { addDays } from "../../src/domain/ingest/PublicationDays.js"
import { hasCuiControlDigit } from "../../src/domain/tenders/FiscalCode.js"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { readSeapNoticeJob, SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { drainDueJobs } from "../../src/infra/queue/JobRunner.js"
import { seapAwardNotice, seapContractNotice, seapDirectAcquisition } from "../support/FakeSeap.js"
import { IngestTestLive, publishTed, publishTedAward, Seap, Ted, today } from "./ingestFixtures.js"

const sicapTender = (noticeNo: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{
      id: string
      title: string
      notice_type: string
      winner_fiscal_codes: Array<string>
      estimated_value_ron: string | null
      other_source_urls: Array<string>
      source_url: string
    }>`
      SELECT id, title, notice_type, winner_fiscal_codes, estimated_value_ron, other_source_urls, source_url
      FROM tenders WHERE source = 'sicap' AND source_notice_id = ${noticeNo}`
  )

const seapState = Effect.flatMap(IngestState, (state) =>
  Effect.map(state.all, (all) => all.find((s) => s.name === "seap")!)
)

describe("SEAP poller", () => {
  layer(IngestTestLive({ pageSize: 2 }), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect(
      "reads the day's contract notices, awards (with winners) and direct acquisitions, with the Referer SEAP requires",
      () =>
        Effect.gen(function* () {
          const seap = yield* Seap
          const cns = [1, 2, 3].map((n) =>
            seapContractNotice({ publicationDate: today(), title: `Furnizare medicamente lot ${n}` })
          )
          const can = seapAwardNotice({
            publicationDate: today(),
            winners: [{ fiscalCode: "RO 22505268" }, { fiscalCode: "14056826" }]
          })
          const da = seapDirectAcquisition({
            publicationDate: today(),
            supplier: { fiscalCode: "RO 6865630", name: "DELTA PLUS" }
          })
          for (const cn of cns) seap.publishContractNotice(cn)
          seap.publishAwardNotice(can)
          seap.publishDirectAcquisition(da)
          yield* (yield* SeapPoller).poll

          for (const cn of cns) {
            const [tender] = yield* sicapTender(cn.item.noticeNo)
            expect(tender?.title).toBe(cn.item.contractTitle)
            expect(tender?.notice_type).toBe("contract")
          }
          const [award] = yield* sicapTender(can.item.noticeNo)
          expect(award?.notice_type).toBe("award")
          expect(award?.winner_fiscal_codes).toEqual(expect.arrayContaining(["22505268", "14056826"]))
          const [direct] = yield* sicapTender(da.item.uniqueIdentificationCode)
          expect(direct?.winner_fiscal_codes).toEqual(["6865630"])

          // Every request carried the same-site Referer and the honest User-Agent (else SEAP answers 403).
          expect(seap.requests.length).toBeGreaterThan(5)
          for (const request of seap.requests) {
            expect(String(request.headers.referer)).toMatch(/\/pub\/notices\//)
            expect(String(request.headers["user-agent"])).toMatch(/^TenderScoringService\//)
          }
          // Three contract notices at two per page: two pages of that list.
          // (The first poll asks from yesterday, the first watermark, to today.)
          const cnPages = seap.requests.filter(
            (r) =>
              r.path.includes("GetCNoticeList") &&
              (r.body as { startPublicationDate: string }).startPublicationDate === today()
          )
          expect(cnPages.map((r) => (r.body as { pageIndex: number }).pageIndex)).toEqual([0, 1])
          expect(yield* seapState).toMatchObject({ enabled: true, watermark: today(), cursor: null, ingested: 5 })

          // Polled again: nothing is read twice (no detail asked again), nothing new.
          const detailsBefore = seap.requests.filter((r) => r.path.includes("C_PUBLIC_CANotice/get/")).length
          yield* (yield* SeapPoller).poll
          expect(seap.requests.filter((r) => r.path.includes("C_PUBLIC_CANotice/get/")).length).toBe(detailsBefore)
          expect((yield* seapState).ingested).toBe(5)
        })
    )

    it.effect("an erratum (higher errataNo) updates its tender, not a new one, and is not new for alerts", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const cn = seapContractNotice({ publicationDate: today(), title: "Reparații drumuri comunale", value: 500000 })
        seap.publishContractNotice(cn)
        yield* (yield* SeapPoller).poll
        const [before] = yield* sicapTender(cn.item.noticeNo)
        seap.publishContractNotice(
          seapContractNotice({
            publicationDate: today(),
            id: cn.item.cNoticeId,
            noticeNo: cn.item.noticeNo,
            title: "Reparații drumuri comunale",
            value: 650000,
            errataNo: 1
          })
        )
        yield* (yield* SeapPoller).poll
        const after = yield* sicapTender(cn.item.noticeNo)
        expect(after).toHaveLength(1)
        expect(after[0]!.id).toBe(before!.id)
        expect(Number(after[0]!.estimated_value_ron)).toBe(650000)
        const [job] = yield* sql<{ payload: { isNew: Array<string> } }>`
          SELECT payload FROM jobs WHERE kind = 'tenders.score' AND payload->'tenderIds' ? ${before!.id}
          ORDER BY created_at DESC, id DESC LIMIT 1`
        expect(job?.payload.isNew).toEqual([])
      })
    )

    it.effect("a maintenance page (200 text/html) is an outage: nothing imported; then it recovers", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const cn = seapContractNotice({ publicationDate: today(), title: "Servicii de curățenie" })
        seap.publishContractNotice(cn)
        seap.setMaintenance(true)
        const failure = yield* Effect.flip((yield* SeapPoller).poll)
        expect(failure.reason).toBe("maintenance")
        expect(yield* sicapTender(cn.item.noticeNo)).toHaveLength(0)

        expect(failure.message).toMatch(/text\/html/)
        seap.setMaintenance(false)
        yield* (yield* SeapPoller).poll
        expect(yield* sicapTender(cn.item.noticeNo)).toHaveLength(1)
      })
    )

    it.effect("a failed detail is retried as its own job; the rest of the page is in", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const failing = seapAwardNotice({ publicationDate: today() })
        const fine = seapAwardNotice({ publicationDate: today() })
        seap.publishAwardNotice(failing)
        seap.publishAwardNotice(fine)
        seap.failDetail(failing.item.noticeNo, 2, 500)
        yield* (yield* SeapPoller).poll
        expect(yield* sicapTender(fine.item.noticeNo)).toHaveLength(1)
        expect(yield* sicapTender(failing.item.noticeNo)).toHaveLength(0)
        yield* sql`UPDATE jobs SET run_at = now() WHERE kind = 'ingest.seap-notice'`
        yield* drainDueJobs([readSeapNoticeJob], {
          name: "ingest",
          concurrency: 1,
          lease: Duration.minutes(1),
          pollEvery: Duration.seconds(1)
        })
        expect(yield* sicapTender(failing.item.noticeNo)).toHaveLength(1)
      })
    )

    it.effect("a detail SEAP refuses with 400 is read from its list row, with its winners; other failures wait", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const refusedAward = seapAwardNotice({ publicationDate: today(), winners: [{ fiscalCode: "RO 22505268" }] })
        const refusedDirect = seapDirectAcquisition({
          publicationDate: today(),
          supplier: { fiscalCode: "RO 6865630", name: "DELTA PLUS" }
        })
        const forbidden = seapAwardNotice({ publicationDate: today() })
        seap.publishAwardNotice(refusedAward)
        seap.publishDirectAcquisition(refusedDirect)
        seap.publishAwardNotice(forbidden)
        seap.failDetail(refusedAward.item.noticeNo, 1, 400)
        seap.failDetail(refusedDirect.item.uniqueIdentificationCode, 1, 400)
        seap.failDetail(forbidden.item.noticeNo, 1, 403)
        yield* (yield* SeapPoller).poll
        const [award] = yield* sicapTender(refusedAward.item.noticeNo)
        expect(award).toMatchObject({
          notice_type: "award",
          title: refusedAward.item.contractTitle.replace(/\s+/g, " ")
        })
        // The contracts (the winners) are their own request, which answered.
        expect(award?.winner_fiscal_codes).toEqual(["22505268"])
        const [direct] = yield* sicapTender(refusedDirect.item.uniqueIdentificationCode)
        expect(direct?.winner_fiscal_codes).toEqual(["6865630"])
        // A 403 may be SEAP throttling: that notice is not taken half-read, it waits for its retry job.
        expect(yield* sicapTender(forbidden.item.noticeNo)).toHaveLength(0)
        const retried = (yield* sql<{ ref: string }>`
          SELECT coalesce(payload->'item'->>'noticeNo', payload->'item'->>'uniqueIdentificationCode') AS ref
          FROM jobs WHERE kind = 'ingest.seap-notice'`).map((job) => job.ref)
        expect(retried).toContain(forbidden.item.noticeNo)
        expect(retried).not.toContain(refusedAward.item.noticeNo)
        expect(retried).not.toContain(refusedDirect.item.uniqueIdentificationCode)
      })
    )

    it.effect(
      "one award on TED and SEAP (SEAP cites the TED number) is one tender with both pages and both winners",
      () =>
        Effect.gen(function* () {
          const ted = yield* Ted
          const seap = yield* Seap
          const sql = yield* SqlClient.SqlClient
          // TED first, then SEAP.
          const onTed = publishTedAward(ted, "00712001-2026")
          yield* (yield* TedPoller).poll
          const onSeap = seapAwardNotice({
            publicationDate: today(),
            tedNoticeNo: "2026/S 230-712001",
            winners: [{ fiscalCode: "RO 22505268" }, { fiscalCode: "14056826" }]
          })
          seap.publishAwardNotice(onSeap)
          yield* (yield* SeapPoller).poll
          expect(yield* sicapTender(onSeap.item.noticeNo)).toHaveLength(0)
          const [joined] = yield* sql<{
            id: string
            other_source_urls: Array<string>
            winner_fiscal_codes: Array<string>
          }>`
          SELECT id, other_source_urls, winner_fiscal_codes FROM tenders
          WHERE source = 'ted-eforms' AND source_notice_id = ${onTed.noticeId}`
          expect(joined?.other_source_urls).toEqual([expect.stringContaining("e-licitatie.ro")])
          // TED's winner once, then the one only SEAP names; scored again as a change, so the new
          // winner's company is rescored with its award history.
          expect(joined?.winner_fiscal_codes).toEqual(["22505268", "14056826"])
          const changes = yield* sql<{ payload: { changed?: Array<string> } }>`
            SELECT payload FROM jobs WHERE kind = 'tenders.score'`
          expect(changes.filter((job) => job.payload.changed?.includes(joined!.id))).toHaveLength(1)
          const [seen] = yield* sql<{ tender_id: string }>`
          SELECT tender_id FROM ingested_notices WHERE source = 'seap' AND notice_ref = ${onSeap.item.noticeNo}`
          expect(seen?.tender_id).toBe(joined!.id)

          // SEAP first, then TED.
          const seapFirst = seapAwardNotice({ publicationDate: today(), tedNoticeNo: "2026/S 230-717001" })
          seap.publishAwardNotice(seapFirst)
          yield* (yield* SeapPoller).poll
          const tedLater = publishTedAward(ted, "00717001-2026")
          yield* (yield* TedPoller).poll
          const [fromSeap] = yield* sicapTender(seapFirst.item.noticeNo)
          expect(fromSeap?.other_source_urls).toEqual([expect.stringContaining(tedLater.publicationNumber)])
          const tedRows =
            yield* sql`SELECT id FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${tedLater.noticeId}`
          expect(tedRows).toHaveLength(0)
        })
    )

    it.effect("an award of more than one page of contracts (SEAP's take is 200) keeps every winner", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        // 230 valid CUIs: a body, then its control digit.
        const winners = Array.from({ length: 230 }, (_, i) => {
          const body = String(1_000_000 + i * 7)
          const digit = [...Array(10).keys()].find((d) => hasCuiControlDigit(`${body}${d}`))!
          return { fiscalCode: `${body}${digit}` }
        })
        const award = seapAwardNotice({ publicationDate: today(), winners })
        seap.publishAwardNotice(award)
        yield* (yield* SeapPoller).poll
        const [stored] = yield* sql<{ winner_fiscal_codes: Array<string> }>`
          SELECT winner_fiscal_codes FROM tenders WHERE source = 'sicap' AND source_notice_id = ${award.item.noticeNo}`
        expect(stored!.winner_fiscal_codes).toEqual(winners.map((w) => w.fiscalCode))
        const asked = seap.requests
          .filter((r) => r.path.toLowerCase().endsWith("/getcanoticecontracts"))
          .map((r) => r.body as { skip: number; take: number })
          .filter((b) => b.take === 200)
        expect(asked.slice(-2).map((b) => b.skip)).toEqual([0, 200])
      })
    )

    it.effect(
      "without a TED number, a contract notice on both sources is joined by its facts; a different one is not",
      () =>
        Effect.gen(function* () {
          const ted = yield* Ted
          const seap = yield* Seap
          const sql = yield* SqlClient.SqlClient
          const deadline = addDays(today(), 30)
          // SEAP first: upper case, no diacritics, as SEAP writes titles.
          const onSeap = seapContractNotice({
            publicationDate: today(),
            title: "SERVICII DE MENTENANTA A SISTEMELOR INFORMATICE ALE PRIMARIEI",
            cpv: "72267000-4 - Servicii de intretinere si reparare a software-ului (Rev.2)",
            authority: "4267117 - PRIMARIA MUNICIPIULUI BUCURESTI",
            value: 250000,
            deadline: `${deadline}T10:00`
          })
          const other = seapContractNotice({
            publicationDate: today(),
            title: "Servicii de curățenie a clădirilor primăriei",
            cpv: "72267000-4 - Servicii de intretinere si reparare a software-ului (Rev.2)",
            authority: "4267117 - PRIMARIA MUNICIPIULUI BUCURESTI",
            value: 250000,
            deadline: `${deadline}T10:00`
          })
          seap.publishContractNotice(onSeap)
          seap.publishContractNotice(other)
          yield* (yield* SeapPoller).poll
          // TED: the same procedure in proper Romanian.
          const onTed = publishTed(ted, {
            title: "Servicii de mentenanță a sistemelor informatice ale Primăriei",
            cpv: "72267000",
            buyerFiscalCode: "4267117",
            estimatedValue: 250000,
            deadline
          })
          yield* (yield* TedPoller).poll
          const tedRows =
            yield* sql`SELECT id FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${onTed.noticeId}`
          expect(tedRows).toHaveLength(0)
          const [joined] = yield* sicapTender(onSeap.item.noticeNo)
          expect(joined?.other_source_urls).toEqual([expect.stringContaining(onTed.publicationNumber)])
          const [separate] = yield* sicapTender(other.item.noticeNo)
          expect(separate?.other_source_urls).toEqual([])
        })
    )

    it.effect("a procedure SEAP lists as cancelled closes its tender (read again though seen before)", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const cn = seapContractNotice({ publicationDate: today(), title: "Modernizare iluminat public stradal" })
        seap.publishContractNotice(cn)
        yield* (yield* SeapPoller).poll
        const [open] = yield* sql<{ cancelled_at: Date | null }>`
          SELECT cancelled_at FROM tenders WHERE source = 'sicap' AND source_notice_id = ${cn.item.noticeNo}`
        expect(open?.cancelled_at).toBeNull()
        seap.publishContractNotice({
          ...cn,
          item: { ...cn.item, sysProcedureState: { id: 4, text: "Anulata", localeKey: null } }
        })
        yield* (yield* SeapPoller).poll
        const rows = yield* sql<{ cancelled_at: Date | null }>`
          SELECT cancelled_at FROM tenders WHERE source = 'sicap' AND source_notice_id = ${cn.item.noticeNo}`
        expect(rows).toHaveLength(1)
        expect(rows[0]!.cancelled_at).toBeInstanceOf(Date)
      })
    )
  })
})
