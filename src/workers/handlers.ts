import type { JobHandler } from "../infra/queue/JobRunner.js"
import { scoringJobHandlers } from "../infra/scoring/ScoringJobs.js"
import type { ScoringService } from "../infra/scoring/ScoringService.js"

/** The services the registered handlers need; a worker process's layer provides them. */
export type JobServices = ScoringService

/** The scoring job kinds and their handlers; the scoring runner claims only these kinds. */
export const jobHandlers: ReadonlyArray<JobHandler<JobServices>> = scoringJobHandlers
