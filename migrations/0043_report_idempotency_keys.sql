-- Idempotency keys of report creations (`Idempotency-Key` on POST /api/v1/reports/:companyId/pdf and
-- the app's POST /api/v1/app/companies/:companyId/reports): a client that retries a creation after a
-- timeout gets the first job back instead of a second one it would pay for again. One row per tenant
-- and key, written in the transaction that creates the job and holds its credits, so a key exists
-- exactly when its job does; `fingerprint` (SHA-256 of the decoded request: company and body) tells
-- a repeat from a different request under the same key (409). A row counts for 24 hours after
-- `created_at` (REPORT_IDEMPOTENCY_WINDOW); the worker's hourly report sweep deletes older ones, and
-- a creation takes over an expired row of its key. Deleting the job (report retention, 7 days after
-- it finished; a tenant or company deleted) deletes its key.
CREATE TABLE report_idempotency_keys (
  tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  key         text NOT NULL CHECK (key ~ '^[ -~]{1,255}$'),
  fingerprint text NOT NULL,
  job_id      uuid NOT NULL REFERENCES report_jobs (id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, key)
);
-- The purge's range, and the cascade from a deleted job (without it each deleted job scans the table).
CREATE INDEX report_idempotency_keys_created_idx ON report_idempotency_keys (created_at);
CREATE INDEX report_idempotency_keys_job_idx ON report_idempotency_keys (job_id);
