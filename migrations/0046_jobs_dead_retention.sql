-- Dead letters are deleted DEAD_KEPT (30 days, src/infra/queue/JobQueue.ts) after they died, in
-- batches by the reaper (JobQueue.reap): a webhook delivery that failed its schedule, a refused
-- e-mail, a failed render are routine, and `jobs` grew without bound. The reaper finds the oldest
-- through this index instead of reading every dead job.
CREATE INDEX jobs_dead_idx ON jobs (updated_at) WHERE status = 'dead';
