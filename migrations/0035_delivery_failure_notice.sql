-- When the tenant was e-mailed that a webhook delivery failed (spec 6.3.4): at most once per delivery.
-- The e-mail used to follow "the 4th attempt failed", which sent a second one when a manual retry of a
-- delivery dead-lettered before its 4th attempt became attempt 4 and failed, and none for the dead
-- letter itself. Deliveries that reached a 4th attempt were e-mailed then.
ALTER TABLE webhook_deliveries ADD COLUMN failure_notified_at timestamptz;
UPDATE webhook_deliveries SET failure_notified_at = updated_at WHERE attempt_count >= 4;
