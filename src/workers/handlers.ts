import { backfillScoresJob, rescoreCompanyJob, scoreTendersJob } from "../infra/scoring/ScoringJobs.js"
import type { ScoringService } from "../infra/scoring/ScoringService.js"
import type { JobHandler } from "./Worker.js"

/** The services the registered handlers need; a worker process's layer provides them. */
export type JobServices = ScoringService

/** Job kinds and the actor that handles each; the worker process claims only these kinds. */
export const jobHandlers: Readonly<Record<string, JobHandler<JobServices>>> = {
  "tenders.score": scoreTendersJob,
  "company.rescore": rescoreCompanyJob,
  "scores.backfill": backfillScoresJob
}
