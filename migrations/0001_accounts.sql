-- Tenants, people and credentials: who may call the service and with what.

CREATE TABLE tenants (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name       text NOT NULL CHECK (length(btrim(name)) > 0),
  plan       text NOT NULL CHECK (plan IN ('free', 'starter', 'activ', 'consultant')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  email         text NOT NULL CHECK (email = lower(email) AND position('@' IN email) > 1),
  password_hash text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (email);
CREATE INDEX users_tenant_idx ON users (tenant_id);

-- A login session: the family of rotated refresh tokens. Access tokens name their session, so
-- revoking the session (logout, reuse detection) rejects its access tokens at once.
CREATE TABLE auth_sessions (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id        uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz,
  revoked_reason text
);
CREATE INDEX auth_sessions_user_idx ON auth_sessions (user_id);

CREATE TABLE refresh_tokens (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  session_id    uuid NOT NULL REFERENCES auth_sessions (id) ON DELETE CASCADE,
  token_hash    bytea NOT NULL UNIQUE,
  expires_at    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  rotated_at    timestamptz,
  successor_id  uuid REFERENCES refresh_tokens (id)
);
CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id);

-- Only the SHA-256 of a key is stored; display_prefix is what listings show ("svc_1a2b3c4d…").
CREATE TABLE api_keys (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id      uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name           text NOT NULL DEFAULT '',
  key_hash       bytea NOT NULL UNIQUE CHECK (length(key_hash) = 32),
  display_prefix text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  revoked_at     timestamptz,
  last_used_at   timestamptz
);
CREATE INDEX api_keys_tenant_active_idx ON api_keys (tenant_id) WHERE revoked_at IS NULL;
