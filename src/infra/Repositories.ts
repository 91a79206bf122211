import { Layer } from "effect"
import { CompaniesRepoLive } from "./accounts/CompaniesRepo.js"
import { CompanyProfilesRepoLive } from "./accounts/CompanyProfilesRepo.js"
import { TenantsRepoLive } from "./accounts/TenantsRepo.js"
import { UsersRepoLive } from "./accounts/UsersRepo.js"
import { WatchlistsRepoLive } from "./accounts/WatchlistsRepo.js"
import { AlertsRepoLive } from "./alerts/AlertsRepo.js"
import { ApiKeysRepoLive } from "./auth/ApiKeysRepo.js"
import { CreditLedgerLive } from "./billing/CreditLedger.js"
import { CreditUsageLive } from "./billing/CreditUsage.js"
import { EmailOutboxLive } from "./mail/EmailOutbox.js"
import { JobQueueLive } from "./queue/JobQueue.js"
import { AppTenderReadsLive } from "./scoring/AppTenderReads.js"
import { ScoredTendersRepoLive } from "./scoring/ScoredTendersRepo.js"
import { ScoreReasonsLive } from "./scoring/ScoreReasons.js"
import { ScoringServiceLive } from "./scoring/ScoringService.js"
import { CpvSearchLive } from "./tenders/CpvSearch.js"
import { TenderStoreLive } from "./tenders/TenderStore.js"
import { WebhooksRepoLive } from "./webhooks/WebhooksRepo.js"

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
  ScoringServiceLive,
  ScoreReasonsLive,
  WebhooksRepoLive,
  AppTenderReadsLive,
  CpvSearchLive,
  CreditUsageLive.pipe(Layer.provide(CreditLedgerLive))
)
