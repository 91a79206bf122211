import { Clock, Effect } from "effect"
import { planRules } from "../domain/Plan.js"
import { normalizeAuthorityName } from "../domain/tenders/RomanianText.js"
import type { Tender } from "../domain/tenders/TenderRecord.js"
import { CompaniesRepo } from "../infra/accounts/CompaniesRepo.js"
import { TenantsRepo } from "../infra/accounts/TenantsRepo.js"
import { UsersRepo } from "../infra/accounts/UsersRepo.js"
import { WatchlistsRepo } from "../infra/accounts/WatchlistsRepo.js"
import { ApiKeysRepo } from "../infra/auth/ApiKeysRepo.js"
import { inTransaction } from "../infra/db/Transaction.js"
import { JobQueue } from "../infra/queue/JobQueue.js"
import { RescoreCompany } from "../infra/scoring/ScoringJobKinds.js"
import { ScoringService } from "../infra/scoring/ScoringService.js"
import { TENDER_CHUNK_SIZE, TenderStore } from "../infra/tenders/TenderStore.js"
import {
  DEMO_COMPANIES,
  DEMO_EMAIL,
  DEMO_PASSWORD,
  DEMO_SOURCE,
  DEMO_TENANT_NAME,
  type DemoTender,
  demoTenders
} from "./DemoData.js"
import { readDemoNotices } from "./DemoNotices.js"

/** What a seeding run created; the API key is only ever known here (its hash is stored). */
export interface DemoSeedResult {
  readonly tenantId: string
  readonly email: string
  readonly password: string
  readonly apiKey: string
  readonly companyIds: ReadonlyArray<string>
  /** The demo tenders stored by this run; `newTenderIds` those that did not exist before (the rest were updated). */
  readonly tenderIds: ReadonlyArray<string>
  readonly newTenderIds: ReadonlyArray<string>
}

/** A demo tender as the importer would have normalised it: a contract notice of the `demo` source. */
const asTender = (demo: DemoTender): Tender => ({
  source: DEMO_SOURCE,
  sourceNoticeId: demo.sourceNoticeId,
  noticeType: "contract",
  title: demo.title,
  description: demo.description,
  mainCpv: demo.mainCpv,
  additionalCpvs: demo.additionalCpvs,
  authority: {
    name: demo.authority.name,
    normalizedName: normalizeAuthorityName(demo.authority.name),
    fiscalCode: demo.authority.fiscalCode,
    county: demo.authority.county
  },
  deadline: demo.deadline,
  estimatedValueRon: demo.estimatedValueRon,
  estimatedValueEur: demo.estimatedValueEur,
  publishDate: demo.publishDate,
  sourceUrl: demo.sourceUrl,
  winnerFiscalCodes: []
})

/**
 * Stores the demo tenders through the tender store, as an import would (batched, one statement
 * per chunk). Within each chunk the tenders go oldest first, so the ids (and the scoring batches
 * made of them) come in that order.
 */
const storeDemoTenders = (tenders: ReadonlyArray<DemoTender>) =>
  Effect.gen(function* () {
    const ordered: Array<Tender> = []
    for (let start = 0; start < tenders.length; start += TENDER_CHUNK_SIZE) {
      const chunk = tenders.slice(start, start + TENDER_CHUNK_SIZE)
      ordered.push(...[...chunk].sort((a, b) => a.publishDate.getTime() - b.publishDate.getTime()).map(asTender))
    }
    const stored = yield* Effect.flatMap(TenderStore, (store) => store.upsert(ordered))
    if (stored.failed.length > 0) {
      const [first] = stored.failed
      return yield* Effect.dieMessage(
        `The database refused ${stored.failed.length} demo tenders, e.g. ${first!.tender.sourceNoticeId}: ${first!.reason}`
      )
    }
    return { tenderIds: [...stored.inserted, ...stored.updated], newTenderIds: stored.inserted }
  })

/**
 * Seeds the demo: one Consultant tenant, its user (fixed e-mail and password), three companies with
 * watchlists, one API key and the demo tenders (real notices, dates moved to now), all in one transaction and through the same
 * repositories as real data (so each watchlist queues its company's rescore). Fails with EmailTaken
 * when the demo user exists (seeding twice would give a second tenant).
 */
export const seedDemo = Effect.gen(function* () {
  const tenants = yield* TenantsRepo
  const users = yield* UsersRepo
  const companies = yield* CompaniesRepo
  const watchlists = yield* WatchlistsRepo
  const apiKeys = yield* ApiKeysRepo

  const tenders = demoTenders({ notices: yield* readDemoNotices, now: yield* Clock.currentTimeMillis })

  return yield* inTransaction(
    Effect.gen(function* () {
      const tenant = yield* tenants.create({ name: DEMO_TENANT_NAME, plan: "consultant" })
      yield* users.create({ tenantId: tenant.id, email: DEMO_EMAIL, password: DEMO_PASSWORD })
      const companyIds: Array<string> = []
      for (const demo of DEMO_COMPANIES) {
        const company = yield* companies.create({
          tenantId: tenant.id,
          name: demo.name,
          description: demo.description,
          fiscalCode: demo.fiscalCode
        })
        companyIds.push(company.id)
        for (const w of demo.watchlists) {
          // The demo's own data: a refusal would be a bug, not an input error.
          yield* watchlists
            .create({
              tenantId: tenant.id,
              limit: planRules[tenant.plan].watchlistLimit,
              fields: { ...w, authorityId: null, companyId: company.id }
            })
            .pipe(Effect.orDie)
        }
      }
      const { key } = yield* apiKeys.create({ tenantId: tenant.id, name: "demo" })
      const stored = yield* storeDemoTenders(tenders)
      return {
        tenantId: tenant.id,
        email: DEMO_EMAIL,
        password: DEMO_PASSWORD,
        apiKey: key,
        companyIds,
        ...stored
      } satisfies DemoSeedResult
    })
  )
})

/** True when the database has no tenant at all: the only case in which `npm start` seeds. */
export const databaseIsEmpty = Effect.flatMap(TenantsRepo, (tenants) => tenants.none)

/**
 * Seeds the demo, then scores its tenders as an import does: every stored tender, the new ones
 * raising the companies' first alerts. That scores every demo company against every tender with
 * its final profile, so the rescores its creation and each of its watchlists queued (three a
 * company) would only redo it: they are settled, not run.
 */
export const seedDemoAndScore = Effect.gen(function* () {
  const seeded = yield* seedDemo
  const scoring = yield* ScoringService
  yield* scoring.scoreTenders(seeded.tenderIds, { isNew: seeded.newTenderIds })
  const jobs = yield* JobQueue
  yield* jobs.settleQueued(
    RescoreCompany,
    seeded.companyIds.map((companyId) => ({ companyId }))
  )
  return seeded
})
