-- A job enqueued "unless queued" (JobQueue.enqueue's `unlessQueued`: a company's rescore) stands, while
-- it waits, for every later one of its kind and group: they update it instead of adding a job. The
-- flag is cleared when the job is claimed, so a running job never blocks the next one, and a job back
-- in the queue (a retry, a reaped or released job) never collides with one queued meanwhile.
ALTER TABLE jobs ADD COLUMN unless_queued boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX jobs_unless_queued_idx ON jobs (kind, group_key) WHERE status = 'queued' AND unless_queued;
