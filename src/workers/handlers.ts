import { backfillScoresJob, rescoreCompanyJob, scoreTendersJob } from "../infra/scoring/ScoringJobs.js"
import type { JobHandler } from "./Worker.js"

/** Job kinds and the actor that handles each; the worker process claims only these kinds. */
export const jobHandlers: Record<string, JobHandler> = {
  "tenders.score": scoreTendersJob,
  "company.rescore": rescoreCompanyJob,
  "scores.backfill": backfillScoresJob
}
