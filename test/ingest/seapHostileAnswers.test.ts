import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { IngestState } from "../../src/infra/ingest/IngestState.js"
import { SeapPoller } from "../../src/infra/ingest/SeapPoller.js"
import { seapAwardNotice, seapContractNotice, seapDirectAcquisition } from "../support/FakeSeap.js"
import { AuditIngestLive, rewriteJson, SeapProxy } from "./hostileSources.js"
import { daysAgo, Seap, today } from "./ingestFixtures.js"

/**
 * SEAP answers that are well-formed JSON but hostile (a lot that is null, an absurd erratum number,
 * a page without its total, a list that shifts while it is paged), through a proxy in front of the
 * fake SEAP: one bad notice is skipped with its reason, and never stops its page, its source or a
 * later poll; no notice a well-formed answer lists is lost.
 */

/** Why a poll ended badly, with the database's own reason when it was a statement. */
const why = (exit: Exit.Exit<unknown, unknown>) => {
  if (Exit.isSuccess(exit)) return ""
  const error = Cause.squash(exit.cause) as { message?: string; cause?: { message?: string } }
  return `${error.message ?? String(error)}${error.cause?.message ? `: ${error.cause.message}` : ""}`
}

const tenders = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: string }>`SELECT id FROM tenders WHERE source = 'sicap' AND source_notice_id = ${id}`.pipe(Effect.orDie)
  )

const skipReasons = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ notice_ref: string; skip_reason: string }>`
    SELECT notice_ref, skip_reason FROM ingested_notices WHERE source = 'seap' AND skip_reason IS NOT NULL`.pipe(
    Effect.orDie
  )
)

const seapState = Effect.flatMap(IngestState, (state) =>
  Effect.map(state.all, (all) => all.find((s) => s.name === "seap")!)
)

describe("SEAP: an award detail whose lot list holds null", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("is read without that lot; the page's other awards and the direct acquisitions come in", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const proxy = yield* SeapProxy
        const poison = seapAwardNotice({ publicationDate: today() })
        const fine = seapAwardNotice({ publicationDate: today() })
        const da = seapDirectAcquisition({ publicationDate: today() })
        seap.publishAwardNotice(poison)
        seap.publishAwardNotice(fine)
        seap.publishDirectAcquisition(da)
        // `descriptionList: [null]`: a JSON array holding a null lot.
        proxy.rule(
          rewriteJson(new RegExp(`/C_PUBLIC_CANotice/get/${poison.item.caNoticeId}$`, "i"), (json) => {
            json.caNoticeEdit_New.section2_New.section2_2_New.descriptionList = [null]
            return json
          })
        )
        const first = yield* Effect.exit((yield* SeapPoller).poll)
        const second = yield* Effect.exit((yield* SeapPoller).poll)
        expect(Exit.isSuccess(first), why(first)).toBe(true)
        expect(Exit.isSuccess(second), why(second)).toBe(true)
        for (const id of [poison.item.noticeNo, fine.item.noticeNo, da.item.uniqueIdentificationCode]) {
          expect(yield* tenders(id)).toHaveLength(1)
        }
      })
    )
  })
})

describe("SEAP: an award detail whose reading crashes", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("is skipped alone, with the reason, and counted; the page's other awards come in", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const proxy = yield* SeapProxy
        const poison = seapAwardNotice({ publicationDate: today() })
        const fine = seapAwardNotice({ publicationDate: today() })
        seap.publishAwardNotice(poison)
        seap.publishAwardNotice(fine)
        const skippedBefore = (yield* seapState).skipped
        // Valid JSON nested 200,000 deep: reading it overflows the stack (any reading bug would do).
        const depth = 200_000
        proxy.rule(async (request, upstream) => {
          if (!request.path.endsWith(`/C_PUBLIC_CANotice/get/${poison.item.caNoticeId}`)) return undefined
          const answer = await upstream()
          const deep = `"deep":${"[".repeat(depth)}${"]".repeat(depth)},`
          return { ...answer, body: answer.body.replace('"caNoticeEdit_New":{', `"caNoticeEdit_New":{${deep}`) }
        })
        const first = yield* Effect.exit((yield* SeapPoller).poll)
        const second = yield* Effect.exit((yield* SeapPoller).poll)
        expect(Exit.isSuccess(first), why(first)).toBe(true)
        expect(Exit.isSuccess(second), why(second)).toBe(true)
        expect(yield* tenders(fine.item.noticeNo)).toHaveLength(1)
        expect(yield* tenders(poison.item.noticeNo)).toHaveLength(0)
        const reasons = yield* skipReasons
        expect(reasons.find((row) => row.notice_ref === poison.item.noticeNo)?.skip_reason).toMatch(
          /^could not be read: .*call stack/
        )
        // Skipped once: the second poll sees it read (marked with its version), as any skipped notice.
        expect((yield* seapState).skipped).toBe(skippedBefore + 1)
      })
    )
  })
})

describe("SEAP: a list item with an absurd errataNo", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("is skipped with its reason; the other notices of its page come in, the paging state moves on", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const absurd = seapContractNotice({ publicationDate: today(), errataNo: 3_000_000_000 })
        const fine = seapContractNotice({ publicationDate: today(), title: "Furnizare reactivi de laborator" })
        seap.publishContractNotice(absurd)
        seap.publishContractNotice(fine)
        const first = yield* Effect.exit((yield* SeapPoller).poll)
        const second = yield* Effect.exit((yield* SeapPoller).poll)
        expect(Exit.isSuccess(first), why(first)).toBe(true)
        expect(Exit.isSuccess(second), why(second)).toBe(true)
        expect(yield* tenders(fine.item.noticeNo)).toHaveLength(1)
        expect(yield* tenders(absurd.item.noticeNo)).toHaveLength(0)
        const reasons = (yield* skipReasons).map((row) => row.skip_reason)
        expect(reasons).toContain(`${absurd.item.noticeNo}: errataNo 3000000000 is not a whole number from 0 to 10000`)
        const state = yield* seapState
        expect(state.last_success_at).toBeInstanceOf(Date)
        expect(state.skipped).toBeGreaterThanOrEqual(1)
      })
    )
  })
})

describe("SEAP: a list item with an absurd notice number", () => {
  layer(AuditIngestLive(), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("is skipped with its reason; the other notices of its page come in", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        // 4,000 characters that do not compress (a btree index entry holds at most ~2.7 kB).
        const absurd = seapContractNotice({ publicationDate: today(), noticeNo: randomBytes(3000).toString("base64") })
        const fine = seapContractNotice({ publicationDate: today(), title: "Servicii de curățenie" })
        seap.publishContractNotice(absurd)
        seap.publishContractNotice(fine)
        const first = yield* Effect.exit((yield* SeapPoller).poll)
        const second = yield* Effect.exit((yield* SeapPoller).poll)
        expect(Exit.isSuccess(first), why(first)).toBe(true)
        expect(Exit.isSuccess(second), why(second)).toBe(true)
        expect(yield* tenders(fine.item.noticeNo)).toHaveLength(1)
        const reasons = (yield* skipReasons).map((row) => row.skip_reason)
        expect(reasons).toContain(
          `a notice number of 4000 characters (at most 100): ${absurd.item.noticeNo.slice(0, 20)}…`
        )
      })
    )
  })
})

describe("SEAP: a list page without `total`", () => {
  layer(AuditIngestLive({ pageSize: 2 }), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect(
      "is not taken for the last page: paging goes on to a short page, and the next pages' notices come in",
      () =>
        Effect.gen(function* () {
          const seap = yield* Seap
          const proxy = yield* SeapProxy
          const notices = [1, 2, 3, 4].map((n) =>
            seapContractNotice({ publicationDate: today(), title: `Servicii de pază obiectiv ${n}` })
          )
          for (const cn of notices) seap.publishContractNotice(cn)
          proxy.rule(
            rewriteJson(/GetCNoticeList/i, (json) => {
              delete json.total
              return json
            })
          )
          const asked = proxy.requests.length
          const poll = yield* Effect.exit((yield* SeapPoller).poll)
          expect(Exit.isSuccess(poll), why(poll)).toBe(true)
          for (const cn of notices) expect(yield* tenders(cn.item.noticeNo)).toHaveLength(1)
          // Two full pages, then the empty third ends the list (nothing says there is more).
          const pages = proxy.requests
            .slice(asked)
            .filter((r) => /GetCNoticeList/i.test(r.path))
            .map((r) => JSON.parse(r.body) as { pageIndex: number; startPublicationDate: string })
            .filter((body) => body.startPublicationDate === today())
            .map((body) => body.pageIndex)
          expect(pages).toEqual([0, 1, 2])
        })
    )
  })
})

describe("SEAP: a list that shifts while it is paged (a notice leaves page 0 before page 1 is asked)", () => {
  layer(AuditIngestLive({ pageSize: 2 }), { excludeTestServices: true, timeout: 60_000 })((it) => {
    it.effect("loses no award of its day: its day is asked again at the next poll, which reads the one that slid", () =>
      Effect.gen(function* () {
        const seap = yield* Seap
        const proxy = yield* SeapProxy
        // The first poll asks from yesterday (the first watermark) to today.
        const day = daysAgo(1)
        const awards = [1, 2, 3, 4].map(() => seapAwardNotice({ publicationDate: day }))
        for (const award of awards) seap.publishAwardNotice(award)
        proxy.rule(async (request) => {
          if (!/GetCANoticeList/i.test(request.path)) return undefined
          const body = JSON.parse(request.body) as { pageIndex: number; pageSize: number; startPublicationDate: string }
          if (body.startPublicationDate !== day || body.pageIndex !== 1) return undefined
          // Between the two pages the day's first award left the list: every later one slid up by one.
          const all = await fetch(`${proxy.upstream}${request.path}`, {
            method: "POST",
            headers: { "content-type": "application/json", referer: `${proxy.upstream}/pub/notices/` },
            body: JSON.stringify({ ...body, pageIndex: 0, pageSize: 100 })
          }).then((r) => r.json() as Promise<{ items: Array<unknown> }>)
          const left = all.items.slice(1)
          return {
            status: 200,
            headers: { "content-type": "application/json; charset=utf-8" },
            body: JSON.stringify({ total: left.length, items: left.slice(2, 4), searchTooLong: false })
          }
        })
        yield* (yield* SeapPoller).poll
        // The pages as asked were read: the first, second and fourth award; the third slid onto page 0.
        for (const read of [awards[0]!, awards[1]!, awards[3]!]) {
          expect(yield* tenders(read.item.noticeNo)).toHaveLength(1)
        }
        expect(yield* tenders(awards[2]!.item.noticeNo)).toHaveLength(0)
        // The poll ended (success), but its watermark stayed on the shifted day.
        const held = yield* seapState
        expect(held.last_success_at).toBeInstanceOf(Date)
        expect(held.watermark).toBe(day)

        proxy.clear()
        yield* (yield* SeapPoller).poll
        expect(yield* tenders(awards[2]!.item.noticeNo)).toHaveLength(1)
        // The list held still this time: the watermark moves on to today.
        expect((yield* seapState).watermark).toBe(today())
      })
    )
  })
})
