import { Effect, Layer } from "effect"
import { CompaniesRepoLive } from "./accounts/CompaniesRepo.js"
import { CompanyProfilesRepoLive } from "./accounts/CompanyProfilesRepo.js"
import { TenantsRepoLive } from "./accounts/TenantsRepo.js"
import { UsersRepoLive } from "./accounts/UsersRepo.js"
import { WatchlistsRepoLive } from "./accounts/WatchlistsRepo.js"
import { AlertsRepoLive } from "./alerts/AlertsRepo.js"
import { AlertWriter, AlertWriterLive } from "./alerts/AlertWriter.js"
import { ApiKeysRepoLive } from "./auth/ApiKeysRepo.js"
import { CreditLedgerLive } from "./billing/CreditLedger.js"
import { CreditUsageLive } from "./billing/CreditUsage.js"
import { DigestSettingsRepoLive } from "./digest/DigestSettingsRepo.js"
import { IngestStateLive } from "./ingest/IngestState.js"
import { EmailOutboxLive } from "./mail/EmailOutbox.js"
import { JobQueueLive } from "./queue/JobQueue.js"
import { AppTenderReadsLive } from "./scoring/AppTenderReads.js"
import { MatchSink } from "./scoring/MatchSink.js"
import { ScoredTendersRepoLive } from "./scoring/ScoredTendersRepo.js"
import { ScoreReasonsLive } from "./scoring/ScoreReasons.js"
import { ScoringServiceLive } from "./scoring/ScoringService.js"
import { TenderFeedbackLive } from "./scoring/TenderFeedback.js"
import { CpvSearchLive } from "./tenders/CpvSearch.js"
import { TenderStoreLive } from "./tenders/TenderStore.js"
import { Deliveries, DeliveriesLive } from "./webhooks/Deliveries.js"
import { WebhooksRepoLive } from "./webhooks/WebhooksRepo.js"

/**
 * Where scoring meets the capabilities that act on its matches: alerts and webhook events are
 * written by their own capabilities, in the scores' transaction.
 */
export const MatchSinkLive = Layer.effect(
  MatchSink,
  Effect.gen(function* () {
    const alerts = yield* AlertWriter
    const deliveries = yield* Deliveries
    return {
      record: (matches) =>
        Effect.zipWith(alerts.recordMatches(matches), deliveries.recordMatches(matches), (alerts, events) => ({
          alerts,
          events
        }))
    }
  })
).pipe(Layer.provide(Layer.merge(AlertWriterLive, DeliveriesLive)))

/** Scoring with its matches written by alerts and webhooks. */
export const ScoringLive = ScoringServiceLive.pipe(Layer.provide(MatchSinkLive))

/** Every PostgreSQL-backed service; needs only the SqlClient. */
export const RepositoriesLive = Layer.mergeAll(
  TenantsRepoLive,
  UsersRepoLive,
  CompaniesRepoLive,
  ApiKeysRepoLive,
  CreditLedgerLive,
  JobQueueLive,
  EmailOutboxLive,
  WatchlistsRepoLive,
  CompanyProfilesRepoLive,
  AlertsRepoLive,
  ScoredTendersRepoLive,
  TenderStoreLive,
  ScoringLive,
  ScoreReasonsLive,
  TenderFeedbackLive,
  WebhooksRepoLive,
  AppTenderReadsLive,
  CpvSearchLive,
  IngestStateLive,
  DigestSettingsRepoLive,
  CreditUsageLive.pipe(Layer.provide(CreditLedgerLive))
)
