-- When the daily digest was last turned on (from off), set by DigestSettingsRepo. The first digest
-- after a pause looks back at most 24 hours before it, not to where the digest before the pause
-- ended: a tender of the pause is not "new". Null (users who turned it on before this column): no
-- bound, as before; a stamp at migration time would cut their next window short.
ALTER TABLE users ADD COLUMN digest_enabled_at timestamptz;
