-- PDF reports as built (issue 10). Each report_jobs row is its own durable queue entry, claimed
-- with FOR UPDATE SKIP LOCKED under a lease whose times come from the service's clock (as webhook
-- deliveries). The PDF itself lives in report_files (the database storage of ReportStorage), and
-- the 10 credits of a report are held on the balance at creation and settled when the job ends.
ALTER TABLE report_jobs DROP COLUMN pdf;
ALTER TABLE report_jobs
  ALTER COLUMN status SET DEFAULT 'generating',
  ADD COLUMN attempts          smallint NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  ADD COLUMN max_attempts      smallint NOT NULL DEFAULT 3 CHECK (max_attempts > 0),
  -- when the next attempt may start (a retry waits here, status `pending`)
  ADD COLUMN run_at            timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN locked_by         text,
  ADD COLUMN lease_until       timestamptz,
  -- credits taken from the balance at creation; 0 once settled (charged or released)
  ADD COLUMN credits_held      integer NOT NULL DEFAULT 0 CHECK (credits_held >= 0),
  -- the credit period the hold was taken from, where it is settled
  ADD COLUMN hold_period_start date,
  ADD COLUMN updated_at        timestamptz NOT NULL DEFAULT now();
CREATE INDEX report_jobs_due_idx ON report_jobs (run_at)
  WHERE status IN ('pending', 'generating') AND lease_until IS NULL;
CREATE INDEX report_jobs_lease_idx ON report_jobs (lease_until) WHERE lease_until IS NOT NULL;
CREATE INDEX report_jobs_finished_idx ON report_jobs (completed_at) WHERE status IN ('completed', 'failed');

-- One PDF per completed job; removed with its job after the retention (7 days).
CREATE TABLE report_files (
  job_id     uuid PRIMARY KEY REFERENCES report_jobs (id) ON DELETE CASCADE,
  pdf        bytea NOT NULL,
  byte_size  integer NOT NULL CHECK (byte_size > 0),
  created_at timestamptz NOT NULL
);

-- Tokens: SHA-256 of the 64-character token; expiry and creation written from the service's clock.
ALTER TABLE download_tokens
  ALTER COLUMN created_at DROP DEFAULT,
  ADD CONSTRAINT download_tokens_downloads_max CHECK (downloads <= 3);
CREATE INDEX download_tokens_job_idx ON download_tokens (job_id);

-- The ledger records holds and their releases beside charges.
ALTER TABLE credit_ledger DROP CONSTRAINT credit_ledger_kind_check;
ALTER TABLE credit_ledger
  ADD CONSTRAINT credit_ledger_kind_check CHECK (kind IN ('grant', 'charge', 'adjustment', 'hold', 'release'));
