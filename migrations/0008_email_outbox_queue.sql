-- The e-mail outbox as a durable queue: the sender claims due rows with FOR UPDATE SKIP LOCKED
-- under a lease (a crashed worker's rows become claimable again when it runs out) and stores when
-- a failed send is retried. All three times are written from the service's clock.
ALTER TABLE email_outbox
  ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN locked_by       text,
  ADD COLUMN lease_until     timestamptz;
DROP INDEX email_outbox_pending_idx;
CREATE INDEX email_outbox_due_idx ON email_outbox (next_attempt_at) WHERE status = 'pending';
