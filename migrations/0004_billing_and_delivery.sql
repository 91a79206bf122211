-- Credits, reports, webhooks, e-mail and the job queue: everything that is charged or delivered.

-- One balance per tenant and calendar month (Europe/Bucharest). The conditional
-- UPDATE ... WHERE remaining >= cost in the ledger module is what keeps it from going negative.
CREATE TABLE credit_periods (
  tenant_id      uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  period_start   date NOT NULL,
  period_ends_at timestamptz NOT NULL,
  granted        integer NOT NULL CHECK (granted >= 0),
  remaining      integer NOT NULL CHECK (remaining >= 0),
  PRIMARY KEY (tenant_id, period_start)
);

CREATE TABLE credit_ledger (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id     uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  period_start  date NOT NULL,
  -- negative for a charge, positive for a grant; an ops adjustment may be either
  delta         integer NOT NULL,
  kind          text NOT NULL CHECK (kind IN ('grant', 'charge', 'adjustment')),
  reason        text NOT NULL,
  balance_after integer NOT NULL CHECK (balance_after >= 0),
  created_at    timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (tenant_id, period_start) REFERENCES credit_periods (tenant_id, period_start)
);
CREATE INDEX credit_ledger_tenant_idx ON credit_ledger (tenant_id, period_start, id);

CREATE FUNCTION reject_ledger_rewrite() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'credit_ledger is append-only';
END
$$;
CREATE TRIGGER credit_ledger_append_only
  BEFORE UPDATE OR DELETE ON credit_ledger
  FOR EACH ROW EXECUTE FUNCTION reject_ledger_rewrite();

CREATE TABLE report_jobs (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  company_id   uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  -- {date_from, date_to, min_score, watchlist_id}
  params       jsonb NOT NULL,
  status       text NOT NULL DEFAULT 'pending'
               CHECK (status IN ('pending', 'generating', 'completed', 'failed')),
  error        text,
  pdf          bytea,
  created_at   timestamptz NOT NULL DEFAULT now(),
  started_at   timestamptz,
  completed_at timestamptz
);
CREATE INDEX report_jobs_tenant_idx ON report_jobs (tenant_id, created_at);

CREATE TABLE download_tokens (
  token_hash bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  job_id     uuid NOT NULL REFERENCES report_jobs (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  downloads  integer NOT NULL DEFAULT 0 CHECK (downloads >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);

-- The secret is AES-256-GCM ciphertext (iv || tag || data) under MASTER_KEY; never plaintext.
CREATE TABLE webhooks (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  url               text NOT NULL,
  secret_ciphertext bytea NOT NULL,
  events            text[] NOT NULL,
  active            boolean NOT NULL DEFAULT true,
  created_at        timestamptz NOT NULL DEFAULT now(),
  deleted_at        timestamptz
);
CREATE INDEX webhooks_tenant_active_idx ON webhooks (tenant_id) WHERE active;

CREATE TABLE webhook_deliveries (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  webhook_id       uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id         uuid NOT NULL REFERENCES match_events (id) ON DELETE CASCADE,
  status           text NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed', 'webhook_deleted')),
  attempt_count    smallint NOT NULL DEFAULT 0 CHECK (attempt_count BETWEEN 0 AND 4),
  next_attempt_at  timestamptz,
  last_status_code integer,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (webhook_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, created_at DESC);

CREATE TABLE webhook_delivery_attempts (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id   uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt_no    smallint NOT NULL CHECK (attempt_no BETWEEN 1 AND 4),
  started_at    timestamptz NOT NULL,
  finished_at   timestamptz,
  response_code integer,
  error         text,
  UNIQUE (delivery_id, attempt_no)
);

CREATE TABLE email_outbox (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id  uuid REFERENCES tenants (id) ON DELETE CASCADE,
  to_address text NOT NULL,
  subject    text NOT NULL,
  body_text  text NOT NULL,
  status     text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'logged', 'failed')),
  attempts   smallint NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at    timestamptz
);
CREATE INDEX email_outbox_pending_idx ON email_outbox (created_at) WHERE status = 'pending';

-- Durable work for the worker processes: claimed with FOR UPDATE SKIP LOCKED, held by a lease
-- that a reaper returns to the queue when a worker dies.
CREATE TABLE jobs (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind         text NOT NULL,
  payload      jsonb NOT NULL DEFAULT '{}',
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  attempts     integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
  run_at       timestamptz NOT NULL DEFAULT now(),
  locked_by    text,
  lease_until  timestamptz,
  last_error   text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_ready_idx ON jobs (run_at, id) WHERE status = 'queued';
CREATE INDEX jobs_lease_idx ON jobs (lease_until) WHERE status = 'running';
