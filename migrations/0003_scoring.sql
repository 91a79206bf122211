-- Companies, what they watch for, and the scores and alerts that result.

CREATE TABLE companies (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name        text NOT NULL CHECK (length(btrim(name)) > 0),
  description text NOT NULL DEFAULT '',
  -- Romanian fiscal code (CUI), digits only, without the RO prefix
  fiscal_code text CHECK (fiscal_code ~ '^[0-9]{2,10}$'),
  active      boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX companies_tenant_idx ON companies (tenant_id, created_at, id);
CREATE INDEX companies_fiscal_code_idx ON companies (fiscal_code) WHERE fiscal_code IS NOT NULL;

CREATE TABLE watchlists (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  company_id   uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  name         text NOT NULL CHECK (length(btrim(name)) > 0),
  cpv_codes    char(10)[] NOT NULL DEFAULT '{}',
  keywords     text[] NOT NULL DEFAULT '{}',
  min_value    numeric(18, 2),
  max_value    numeric(18, 2),
  authority_id uuid REFERENCES contracting_authorities (id),
  -- alert threshold: a tender scoring at least this much for the company raises an alert
  min_score    smallint NOT NULL DEFAULT 50 CHECK (min_score BETWEEN 0 AND 100),
  active       boolean NOT NULL DEFAULT true,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  deleted_at   timestamptz,
  CHECK (min_value IS NULL OR max_value IS NULL OR min_value <= max_value)
);
CREATE INDEX watchlists_tenant_idx ON watchlists (tenant_id, created_at) WHERE deleted_at IS NULL;
CREATE INDEX watchlists_company_idx ON watchlists (company_id) WHERE deleted_at IS NULL;
CREATE INDEX watchlists_cpv_idx ON watchlists USING gin (cpv_codes) WHERE deleted_at IS NULL;

-- One row per (company, tender) pair that passed the candidate filter. Tender columns used for
-- ordering are copied here so the list query is one index range scan.
CREATE TABLE tender_scores (
  company_id         uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  tender_id          uuid NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  tenant_id          uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  overall_score      smallint NOT NULL CHECK (overall_score BETWEEN 0 AND 100),
  overall_confidence real NOT NULL CHECK (overall_confidence BETWEEN 0 AND 1),
  verdict            text NOT NULL CHECK (verdict IN ('GO', 'RESEARCH', 'SKIP')),
  -- {"semantic": {"score", "weight", "contribution"}, ..., "cpv": {..., "cpv_type"}}
  factors            jsonb NOT NULL,
  model_version      text NOT NULL,
  scored_at          timestamptz NOT NULL,
  tender_publish_date timestamptz NOT NULL,
  tender_ingest_seq  bigint NOT NULL,
  PRIMARY KEY (company_id, tender_id)
);
CREATE INDEX tender_scores_list_idx
  ON tender_scores (company_id, overall_score DESC, tender_publish_date DESC, tender_id);
CREATE INDEX tender_scores_export_idx ON tender_scores (company_id, tender_publish_date, tender_id);
CREATE INDEX tender_scores_tender_idx ON tender_scores (tender_id);

CREATE TABLE alerts (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  company_id   uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  watchlist_id uuid NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  tender_id    uuid NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  score        smallint NOT NULL CHECK (score BETWEEN 0 AND 100),
  verdict      text NOT NULL CHECK (verdict IN ('GO', 'RESEARCH', 'SKIP')),
  read         boolean NOT NULL DEFAULT false,
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (watchlist_id, tender_id)
);
CREATE INDEX alerts_tenant_created_idx ON alerts (tenant_id, created_at DESC, id DESC);
CREATE INDEX alerts_tenant_unread_idx ON alerts (tenant_id) WHERE NOT read;

-- The tender.matched event, once per (company, tender); webhook deliveries fan out from it.
CREATE TABLE match_events (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  tender_id  uuid NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  payload    jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (company_id, tender_id)
);
CREATE INDEX match_events_tenant_idx ON match_events (tenant_id, created_at);
