-- Webhook delivery as built: each webhook_deliveries row is a durable queue entry of its own,
-- claimed with FOR UPDATE SKIP LOCKED under a lease (times written from the service's clock).
-- The body is fixed once per delivery (the bytes every attempt sends and signs). A manual retry
-- from the dashboard allows one attempt more than were made, so attempts are no longer capped at 4.
ALTER TABLE webhook_deliveries
  ADD COLUMN tenant_id        uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  ADD COLUMN body             text NOT NULL,
  ADD COLUMN attempts_allowed smallint NOT NULL DEFAULT 4,
  ADD COLUMN locked_by        text,
  ADD COLUMN lease_until      timestamptz,
  ADD COLUMN last_attempt_at  timestamptz;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_attempt_count_check;
ALTER TABLE webhook_deliveries
  ADD CONSTRAINT webhook_deliveries_attempts_check CHECK (attempt_count BETWEEN 0 AND attempts_allowed);
ALTER TABLE webhook_delivery_attempts DROP CONSTRAINT webhook_delivery_attempts_attempt_no_check;
ALTER TABLE webhook_delivery_attempts ADD CONSTRAINT webhook_delivery_attempts_attempt_no_check CHECK (attempt_no >= 1);
CREATE INDEX webhook_deliveries_lease_idx ON webhook_deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX webhook_deliveries_tenant_idx ON webhook_deliveries (tenant_id, created_at DESC);
