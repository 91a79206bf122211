import { Layer } from "effect"
import { AlertsRepoLive } from "./AlertsRepo.js"
import { ApiKeysRepoLive } from "./ApiKeysRepo.js"
import { CompaniesRepoLive } from "./CompaniesRepo.js"
import { CompanyProfilesRepoLive } from "./CompanyProfilesRepo.js"
import { CreditLedgerLive } from "./CreditLedger.js"
import { JobQueueLive } from "./JobQueue.js"
import { ScoredTendersRepoLive } from "./ScoredTendersRepo.js"
import { ScoringServiceLive } from "./ScoringService.js"
import { TenantsRepoLive } from "./TenantsRepo.js"
import { TenderStoreLive } from "./TenderStore.js"
import { UsersRepoLive } from "./UsersRepo.js"
import { WatchlistsRepoLive } from "./WatchlistsRepo.js"

/** Every PostgreSQL-backed service; needs only the SqlClient. */
export const RepositoriesLive = Layer.mergeAll(
  TenantsRepoLive,
  UsersRepoLive,
  CompaniesRepoLive,
  ApiKeysRepoLive,
  CreditLedgerLive,
  JobQueueLive,
  WatchlistsRepoLive,
  CompanyProfilesRepoLive,
  AlertsRepoLive,
  ScoredTendersRepoLive,
  TenderStoreLive,
  ScoringServiceLive
)
