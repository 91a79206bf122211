-- One leased queue (src/infra/queue): every kind of background work is a row of `jobs`. E-mails,
-- webhook deliveries and report jobs keep their own tables for what they are (the message, the
-- delivery and its attempts, the report and its credit hold); when and by whom they are worked on
-- (run time, attempts, lease, last error, dead letter) is the job's.

ALTER TABLE jobs
  -- Jobs of one group share an in-flight bound that their consumer sets (a webhook's 8 slots).
  ADD COLUMN group_key text;
ALTER TABLE jobs DROP CONSTRAINT jobs_status_check;
UPDATE jobs SET status = 'dead' WHERE status = 'failed';
ALTER TABLE jobs ADD CONSTRAINT jobs_status_check CHECK (status IN ('queued', 'running', 'done', 'dead'));

DROP INDEX jobs_ready_idx;
CREATE INDEX jobs_ready_idx ON jobs (kind, run_at, id) WHERE status = 'queued';
CREATE INDEX jobs_done_idx ON jobs (updated_at) WHERE status = 'done';

-- The work in hand moves to the queue: pending e-mails, due or delivering webhook deliveries, and
-- waiting or generating reports each get their job, with the attempts and times they had.
INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, last_error, created_at, updated_at)
SELECT 'mail.send', jsonb_build_object('emailId', id), 'queued', attempts, greatest(attempts + 1, 5),
       next_attempt_at, last_error, created_at, now()
FROM email_outbox WHERE status = 'pending';

INSERT INTO jobs (kind, payload, group_key, status, attempts, max_attempts, run_at, created_at, updated_at)
SELECT 'webhook.deliver', jsonb_build_object('deliveryId', id), webhook_id::text, 'queued', 0, 20,
       coalesce(next_attempt_at, now()), created_at, now()
FROM webhook_deliveries WHERE status IN ('pending', 'delivering');

INSERT INTO jobs (kind, payload, status, attempts, max_attempts, run_at, last_error, created_at, updated_at)
SELECT 'report.render', jsonb_build_object('reportId', id), 'queued', attempts, greatest(max_attempts, attempts + 1),
       run_at, error, created_at, now()
FROM report_jobs WHERE status IN ('pending', 'generating');

ALTER TABLE email_outbox DROP COLUMN attempts, DROP COLUMN last_error, DROP COLUMN next_attempt_at, DROP COLUMN locked_by,
  DROP COLUMN lease_until;
DROP INDEX IF EXISTS email_outbox_due_idx;

DROP INDEX webhook_deliveries_due_idx;
DROP INDEX webhook_deliveries_lease_idx;
ALTER TABLE webhook_deliveries DROP COLUMN locked_by, DROP COLUMN lease_until;

DROP INDEX report_jobs_due_idx;
DROP INDEX report_jobs_lease_idx;
ALTER TABLE report_jobs DROP COLUMN attempts, DROP COLUMN max_attempts, DROP COLUMN run_at, DROP COLUMN locked_by, DROP COLUMN lease_until;
