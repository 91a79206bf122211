import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addDays } from "../../src/domain/ingest/PublicationDays.js"
import { SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { TedPoller } from "../../src/infra/ingest/TedPoller.js"
import { ScoreTenders } from "../../src/infra/scoring/ScoringJobKinds.js"
import { seapAwardNotice, seapContractNotice } from "../support/FakeSeap.js"
import { hospitalMaintenance, IngestTestLive, publishTed, Seap, Ted, today } from "./ingestFixtures.js"

/**
 * One procedure published on TED and on SEAP is one tender (the second source's notice joins the
 * first's tender). A later version of the joining notice (a SEAP erratum, an eForms change notice)
 * keeps to that tender and moves its deadline and value; a SEAP cancellation closes it; a SEAP award
 * citing the TED number of the contract notice is an award of its own, with its winners.
 */
const tenders = (sql: SqlClient.SqlClient) =>
  sql<{
    id: string
    source: string
    notice_type: string
    deadline: Date | null
    estimated_value_ron: string | null
    cancelled_at: Date | null
    other_source_urls: Array<string>
    winner_fiscal_codes: Array<string>
  }>`SELECT id, source, notice_type, deadline, estimated_value_ron, cancelled_at, other_source_urls, winner_fiscal_codes
     FROM tenders ORDER BY ingest_seq`

const scoreJobsChanging = (tenderId: string) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ payload: { changed?: Array<string>; isNew?: Array<string> } }>`
      SELECT payload FROM jobs WHERE kind = ${ScoreTenders.name}`
    return rows.filter((row) => row.payload.changed?.includes(tenderId)).length
  })

const maintenance = {
  title: "SERVICII DE MENTENANTA A SISTEMELOR INFORMATICE ALE PRIMARIEI",
  cpv: "72267000-4 - Servicii de intretinere si reparare a software-ului (Rev.2)",
  authority: "4267117 - PRIMARIA MUNICIPIULUI BUCURESTI",
  value: 250000
}
const onTedToo = { title: "Servicii de mentenanță a sistemelor informatice ale Primăriei", cpv: "72267000" }

describe("a procedure joined across the two sources", () => {
  layer(IngestTestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("SEAP first, TED joins: the TED change notice moves the SEAP tender's deadline, no second tender", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const deadline = addDays(today(), 30)
        seap.publishContractNotice(
          seapContractNotice({ ...maintenance, publicationDate: today(), deadline: `${deadline}T10:00` })
        )
        yield* (yield* SeapPoller).poll
        const original = publishTed(ted, {
          ...onTedToo,
          buyerFiscalCode: "4267117",
          estimatedValue: 250000,
          deadline
        })
        yield* (yield* TedPoller).poll
        const [joined, ...others] = yield* tenders(sql)
        expect(others).toHaveLength(0)
        expect(joined!.source).toBe("sicap")
        expect(joined!.other_source_urls).toHaveLength(1)
        // The change notice moves the deadline two weeks (as the real change-cn_24_open_dates does).
        publishTed(ted, {
          ...onTedToo,
          changes: { changedNoticeId: original.noticeId },
          buyerFiscalCode: "4267117",
          estimatedValue: 250000,
          deadline: addDays(deadline, 14)
        })
        yield* (yield* TedPoller).poll
        const after = yield* tenders(sql)
        expect(after).toHaveLength(1)
        expect(after[0]!.id).toBe(joined!.id)
        expect(after[0]!.deadline!.getTime()).toBeGreaterThan(joined!.deadline!.getTime() + 13 * 86_400_000)
        // Rescored as a change (alerts only where a verdict rose), not as a new tender.
        expect(yield* scoreJobsChanging(joined!.id)).toBe(1)
      })
    )

    it.effect("TED first, SEAP joins: a SEAP erratum moves the TED tender's deadline, its cancellation closes it", () =>
      Effect.gen(function* () {
        const ted = yield* Ted
        const seap = yield* Seap
        const sql = yield* SqlClient.SqlClient
        const deadline = addDays(today(), 30)
        const pair = hospitalMaintenance(deadline)
        const onTed = publishTed(ted, pair.ted)
        yield* (yield* TedPoller).poll
        const fields = pair.seap
        const notice = seapContractNotice({ ...fields, deadline: `${deadline}T10:00` })
        seap.publishContractNotice(notice)
        yield* (yield* SeapPoller).poll
        const onSeap = sql`SELECT 1 FROM tenders WHERE source = 'sicap' AND source_notice_id = ${notice.item.noticeNo}`
        const [joined] = yield* sql<{ id: string; deadline: Date; other_source_urls: Array<string> }>`
          SELECT id, deadline, other_source_urls FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${onTed.noticeId}`
        expect(joined!.other_source_urls).toHaveLength(1)
        expect(yield* onSeap).toHaveLength(0)

        const erratum = seapContractNotice({
          ...fields,
          id: notice.item.cNoticeId,
          noticeNo: notice.item.noticeNo,
          errataNo: 1,
          value: 520000,
          deadline: `${addDays(deadline, 10)}T10:00`
        })
        seap.publishContractNotice(erratum)
        yield* (yield* SeapPoller).poll
        const [changed] = yield* sql<{ deadline: Date; estimated_value_ron: string }>`
          SELECT deadline, estimated_value_ron FROM tenders WHERE id = ${joined!.id}`
        expect(changed!.deadline.getTime()).toBeGreaterThan(joined!.deadline!.getTime() + 9 * 86_400_000)
        expect(Number(changed!.estimated_value_ron)).toBe(520000)
        expect(yield* onSeap).toHaveLength(0)

        seap.publishContractNotice({
          ...erratum,
          item: { ...erratum.item, sysProcedureState: { id: 4, text: "Anulata", localeKey: null } }
        })
        yield* (yield* SeapPoller).poll
        const [closed] = yield* sql<{ cancelled_at: Date | null }>`
          SELECT cancelled_at FROM tenders WHERE id = ${joined!.id}`
        expect(closed!.cancelled_at).toBeInstanceOf(Date)
      })
    )

    it.effect(
      "a SEAP award citing the TED number of the contract notice is an award of its own, with its winners",
      () =>
        Effect.gen(function* () {
          const ted = yield* Ted
          const seap = yield* Seap
          const sql = yield* SqlClient.SqlClient
          const onTed = publishTed(ted, { title: "Furnizare echipamente de laborator", cpv: "38000000" })
          yield* (yield* TedPoller).poll
          const [number, year] = onTed.publicationNumber.split("-") as [string, string]
          const award = seapAwardNotice({
            publicationDate: today(),
            tedNoticeNo: `${year}/S 230-${Number(number)}`,
            winners: [{ fiscalCode: "RO 22505268" }, { fiscalCode: "14056826" }]
          })
          seap.publishAwardNotice(award)
          yield* (yield* SeapPoller).poll
          const [stored] = yield* sql<{ notice_type: string; winner_fiscal_codes: Array<string> }>`
          SELECT notice_type, winner_fiscal_codes FROM tenders WHERE source = 'sicap' AND source_notice_id = ${award.item.noticeNo}`
          expect(stored!.notice_type).toBe("award")
          expect(stored!.winner_fiscal_codes).toEqual(["22505268", "14056826"])
          const [contract] = yield* sql<{ notice_type: string; winner_fiscal_codes: Array<string> }>`
          SELECT notice_type, winner_fiscal_codes FROM tenders WHERE source = 'ted-eforms' AND source_notice_id = ${onTed.noticeId}`
          expect(contract).toEqual({ notice_type: "contract", winner_fiscal_codes: [] })
        })
    )
  })
})
