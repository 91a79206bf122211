import { SqlClient } from "@effect/sql"
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import { readTenders } from "../../src/domain/tenders/formats/ImportFormat.js"
import type { Tender } from "../../src/domain/tenders/TenderRecord.js"
import { CompaniesRepo } from "../../src/infra/accounts/CompaniesRepo.js"
import { RepositoriesLive } from "../../src/infra/Repositories.js"
import { ScoreReasons } from "../../src/infra/scoring/ScoreReasons.js"
import { ScoringService } from "../../src/infra/scoring/ScoringService.js"
import { TenderStore } from "../../src/infra/tenders/TenderStore.js"
import { jobHandlers } from "../../src/workers/handlers.js"
import { WorkerLive } from "../../src/workers/Worker.js"
import { cpvCatalog, fixture } from "../ingest/support.js"
import { TestDatabaseLive } from "../support/TestDatabase.js"

/**
 * Issue 11 on real data: the 358 SEAP direct awards of the PNRR sample. The earlier 70% are imported
 * as award notices (the companies' history), the later 30% as open contract notices; companies are
 * created through CompaniesRepo (as the CLI does), and their rescore runs in the real worker.
 */
const TestLayer = WorkerLive({ handlers: jobHandlers, pollEvery: "200 millis" }).pipe(
  Layer.provideMerge(RepositoriesLive),
  Layer.provideMerge(TestDatabaseLive)
)

const waitFor = <A, R>(check: Effect.Effect<A | undefined, never, R>) =>
  check.pipe(
    Effect.flatMap((value) => (value === undefined ? Effect.fail("not yet" as const) : Effect.succeed(value))),
    Effect.retry(Schedule.spaced("200 millis").pipe(Schedule.upTo("60 seconds"))),
    Effect.orDie
  )

interface ListRow {
  readonly tender_id: string
  readonly source_notice_id: string
  readonly main_cpv: string
  readonly overall_score: number
  readonly scored_at: string
}

/** A company's list as the key API orders it (score desc, publish date desc, tender id). */
const listOf = (companyId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ListRow>`
      SELECT s.tender_id, t.source_notice_id, t.main_cpv, s.overall_score, s.scored_at::text AS scored_at
      FROM tender_scores s JOIN tenders t ON t.id = s.tender_id
      WHERE s.company_id = ${companyId}
      ORDER BY s.overall_score DESC, s.tender_publish_date DESC, s.tender_id`
  ).pipe(Effect.orDie)

/** Rescore jobs of a company still queued or running. */
const pendingRescores = (companyId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`
      SELECT count(*)::int AS n FROM jobs
      WHERE kind = 'company.rescore' AND payload ->> 'companyId' = ${companyId} AND status IN ('queued', 'running')`
  ).pipe(
    Effect.map((rows) => rows[0]!.n),
    Effect.orDie
  )

const settled = (companyId: string) =>
  waitFor(Effect.map(pendingRescores(companyId), (n) => (n === 0 ? true : undefined)))

const counts = (companyId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ alerts: number; events: number }>`
      SELECT (SELECT count(*)::int FROM alerts WHERE company_id = ${companyId}) AS alerts,
             (SELECT count(*)::int FROM match_events WHERE company_id = ${companyId}) AS events`
  ).pipe(
    Effect.map((rows) => rows[0]!),
    Effect.orDie
  )

const division = (row: ListRow) => row.main_cpv.slice(0, 2)

describe("every company is matched from what we know of it (issue 11, real SEAP awards)", () => {
  layer(TestLayer, { excludeTestServices: true })((it) => {
    it.effect(
      "fiscal code only and description only get sensible lists; profile changes rescore in the worker without alerts",
      () =>
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          const store = yield* TenderStore
          const scoring = yield* ScoringService
          const companies = yield* CompaniesRepo
          const explain = yield* ScoreReasons
          const [tenant] = yield* sql<{
            id: string
          }>`INSERT INTO tenants (name, plan) VALUES ('T', 'consultant') RETURNING id`
          const tenantId = tenant!.id

          const { tenders } = readTenders(
            fixture("sicap/sicap_pnrr_direct_awards_until_2024-03.csv"),
            "sicap",
            cpvCatalog
          )
          const byDate = [...tenders].sort((a, b) => a.publishDate.getTime() - b.publishDate.getTime())
          const cut = Math.floor(byDate.length * 0.7)
          const earlier = byDate.slice(0, cut)
          const later = byDate.slice(cut)
          const open = (t: Tender): Tender => ({
            ...t,
            noticeType: "contract",
            winnerFiscalCodes: [],
            deadline: new Date("2099-01-01T00:00:00Z")
          })
          // The winner with the most earlier awards among those that won a later one too.
          const wonEarlier = new Map<string, number>()
          for (const t of earlier) for (const w of t.winnerFiscalCodes) wonEarlier.set(w, (wonEarlier.get(w) ?? 0) + 1)
          const winner = [...new Set(later.flatMap((t) => t.winnerFiscalCodes))]
            .filter((w) => wonEarlier.has(w))
            .sort((a, b) => wonEarlier.get(b)! - wonEarlier.get(a)! || (a < b ? -1 : 1))[0]!
          expect(winner).toBeDefined()
          const reallyWon = new Set(
            later.filter((t) => t.winnerFiscalCodes.includes(winner)).map((t) => t.sourceNoticeId)
          )

          // A company watching engineering services, there before the notices arrive (it gets alerts).
          const watcher = yield* companies.create({
            tenantId,
            name: "Inginerie SRL",
            description: "",
            fiscalCode: null
          })
          yield* sql`INSERT INTO watchlists (tenant_id, company_id, name, cpv_codes, min_value, max_value, min_score)
                     VALUES (${tenantId}, ${watcher.id}, 'Dirigenție', '{71000000-8}', 10000, 500000, 0)`

          // The import path of `tenders import`: store, then score (new ones may alert).
          const history = yield* store.upsert(earlier)
          yield* scoring.scoreTenders([...history.inserted, ...history.updated], { isNew: history.inserted })
          const notices = yield* store.upsert(later.map(open))
          expect(notices.inserted.length).toBe(later.length)
          yield* scoring.scoreTenders(notices.inserted, { isNew: notices.inserted })
          const watcherBefore = yield* counts(watcher.id)
          expect(watcherBefore.alerts).toBeGreaterThan(0)

          // 1. Fiscal code only: no description, no watchlist. Its list comes from its awards.
          const byCode = yield* companies.create({ tenantId, name: "Câștigător", description: "", fiscalCode: winner })
          yield* settled(byCode.id)
          const codeList = yield* listOf(byCode.id)
          expect(codeList.length).toBeGreaterThan(0)
          expect(codeList.length).toBeLessThan(later.length) // a selection, not everything
          // What it really won later is in its list, among its 10 best.
          const top10 = codeList.slice(0, 10).map((r) => r.source_notice_id)
          expect(top10.some((id) => reallyWon.has(id))).toBe(true)
          expect(yield* counts(byCode.id)).toEqual({ alerts: 0, events: 0 })
          const best = codeList.find((r) => reallyWon.has(r.source_notice_id))!
          const bestReasons = (yield* explain.reasonsFor(byCode.id, [best.tender_id])).get(best.tender_id)!
          expect(bestReasons.historical).toMatch(/^won \d+ contracts?/)
          expect(bestReasons.cpv).toContain(best.main_cpv.trim())
          expect(bestReasons.semantic).toMatch(/^won award titles share: /)
          expect(bestReasons.keyword).toBe("no watchlist keywords to look for")
          expect(bestReasons.value_fit).toBe("no value range in your watchlists")

          // A company we know nothing about (no description, watchlist or fiscal code) has an empty list.
          const unknown = yield* companies.create({ tenantId, name: "Nou SRL", description: "", fiscalCode: null })
          yield* settled(unknown.id)
          expect(yield* listOf(unknown.id)).toEqual([])

          // 2. Description only, as a consultant writes it: no fiscal code, no watchlist.
          const described = yield* companies.create({
            tenantId,
            name: "Supraveghere Construcții SRL",
            description:
              "Asigurăm dirigenție de șantier și supravegherea lucrărilor de construcții pentru primării și școli.",
            fiscalCode: null
          })
          yield* settled(described.id)
          const describedList = yield* listOf(described.id)
          // Few of these notices use its words (SEAP titles spell "diriginte", "dirigintie", ...), but
          // those that do are its trade: site supervision is CPV division 71 (engineering services).
          expect(describedList.length).toBeGreaterThanOrEqual(3)
          expect(describedList.length).toBeLessThan(later.length / 4)
          // Known by its words alone, it is matched by any specific shared word (a search's recall), so
          // its list also holds notices that only share "lucrări de construcții"; the ranking puts its
          // trade first: the top 5 are all site supervision, and most of the top 10.
          const top = describedList.slice(0, 10)
          expect(top.slice(0, 5).map(division)).toEqual(["71", "71", "71", "71", "71"])
          const inTrade = top.filter((r) => division(r) === "71").length
          expect(inTrade / top.length).toBeGreaterThanOrEqual(0.6)
          const first = describedList[0]!
          const firstReasons = (yield* explain.reasonsFor(described.id, [first.tender_id])).get(first.tender_id)!
          expect(firstReasons.semantic).toMatch(/^description shares: /)
          expect(firstReasons.historical).toBe("no fiscal code, so no award history to compare")

          // 3. A profile change (another trade) rescores its open tenders in the worker, no alerts.
          yield* companies.update({
            id: described.id,
            description: "Servicii de consultanță pentru managementul proiectelor și elaborarea cererilor de finanțare."
          })
          yield* settled(described.id)
          const changed = yield* listOf(described.id)
          const changedTop = changed.slice(0, 10)
          expect(changedTop.filter((r) => division(r) === "71").length).toBeLessThan(inTrade)
          // Project management and funding applications: business services (79) and consulting (72) lead.
          const consulting = changedTop.filter((r) => ["79", "72"].includes(division(r))).length
          expect(consulting / changedTop.length).toBeGreaterThan(0.5)
          expect(yield* counts(described.id)).toEqual({ alerts: 0, events: 0 })

          // 4. The watcher's description changes: its open tenders are rescored, no new alert or event.
          const watcherScoredAt = new Map((yield* listOf(watcher.id)).map((r) => [r.tender_id, r.scored_at]))
          yield* companies.update({ id: watcher.id, description: "Dirigenție de șantier și proiectare" })
          yield* settled(watcher.id)
          const watcherAfter = yield* listOf(watcher.id)
          expect(
            watcherAfter.some(
              (r) => watcherScoredAt.has(r.tender_id) && watcherScoredAt.get(r.tender_id) !== r.scored_at
            )
          ).toBe(true)
          expect(yield* counts(watcher.id)).toEqual(watcherBefore)
          const watched = watcherAfter[0]!
          const watchedReasons = (yield* explain.reasonsFor(watcher.id, [watched.tender_id])).get(watched.tender_id)!
          expect(watchedReasons.cpv).toMatch(/lies in your watched division 71$/)
          expect(watchedReasons.value_fit).toMatch(/ M RON (inside|below|above) your range 0\.01-0\.5 M RON$/)

          // 5. Importing an award notice the fiscal-code company won queues its rescore (history grows).
          const wonNow = later.find((t) => t.winnerFiscalCodes.includes(winner))!
          const award = yield* store.upsert([{ ...wonNow, sourceNoticeId: `${wonNow.sourceNoticeId}-award` }])
          yield* scoring.scoreTenders(award.inserted, { isNew: award.inserted })
          const [queued] = yield* sql<{ n: number }>`
            SELECT count(*)::int AS n FROM jobs WHERE kind = 'company.rescore' AND payload ->> 'companyId' = ${byCode.id}`
          expect(queued!.n).toBe(2) // its creation, and this award
          yield* settled(byCode.id)
          const again = (yield* explain.reasonsFor(byCode.id, [best.tender_id])).get(best.tender_id)!
          const wins = (text: string) => Number(/won (\d+)/.exec(text)![1])
          expect(wins(again.historical)).toBe(wins(bestReasons.historical) + 1)
          expect(yield* counts(byCode.id)).toEqual({ alerts: 0, events: 0 })
        }),
      180_000
    )
  })
})
