-- Reference data and tenders: what is being bought, by whom, and for how much.

CREATE TABLE cpv_codes (
  code       char(8) PRIMARY KEY CHECK (code ~ '^[0-9]{8}$'),
  code_full  char(10) NOT NULL UNIQUE,
  level      text NOT NULL CHECK (level IN ('division', 'group', 'class', 'category', 'subcategory')),
  nature     text NOT NULL CHECK (nature IN ('supplies', 'works', 'services')),
  label_ro   text NOT NULL,
  label_en   text NOT NULL
);

CREATE TABLE contracting_authorities (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name            text NOT NULL,
  -- lower-case, diacritics folded, punctuation collapsed: the dedup key when there is no fiscal code
  normalized_name text NOT NULL,
  fiscal_code     text,
  county          text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX contracting_authorities_fiscal_code_key
  ON contracting_authorities (fiscal_code) WHERE fiscal_code IS NOT NULL;
CREATE UNIQUE INDEX contracting_authorities_name_key
  ON contracting_authorities (normalized_name) WHERE fiscal_code IS NULL;

CREATE SEQUENCE tender_ingest_seq;

CREATE TABLE tenders (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  source              text NOT NULL,
  source_notice_id    text NOT NULL,
  notice_type         text NOT NULL DEFAULT 'contract' CHECK (notice_type IN ('contract', 'award')),
  title               text NOT NULL,
  description         text NOT NULL DEFAULT '',
  main_cpv            char(10) NOT NULL,
  additional_cpvs     char(10)[] NOT NULL DEFAULT '{}',
  authority_id        uuid NOT NULL REFERENCES contracting_authorities (id),
  deadline            timestamptz,
  estimated_value_ron numeric(18, 2),
  estimated_value_eur numeric(18, 2),
  publish_date        timestamptz NOT NULL,
  source_url          text NOT NULL DEFAULT '',
  winner_fiscal_codes text[] NOT NULL DEFAULT '{}',
  -- Order of first arrival; re-importing a notice keeps it, so cursors bound by it stay stable.
  ingest_seq          bigint NOT NULL DEFAULT nextval('tender_ingest_seq'),
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (source, source_notice_id)
);
CREATE UNIQUE INDEX tenders_ingest_seq_key ON tenders (ingest_seq);
CREATE INDEX tenders_publish_date_idx ON tenders (publish_date);
CREATE INDEX tenders_authority_idx ON tenders (authority_id);
CREATE INDEX tenders_main_cpv_idx ON tenders (main_cpv);
CREATE INDEX tenders_additional_cpvs_idx ON tenders USING gin (additional_cpvs);
CREATE INDEX tenders_winners_idx ON tenders USING gin (winner_fiscal_codes) WHERE notice_type = 'award';
