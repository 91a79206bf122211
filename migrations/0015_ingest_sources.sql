-- Live ingestion (src/infra/ingest): the state of each notice source's poller, and every notice a
-- poller has seen, so that a notice seen again is neither a new tender nor a second alert.

CREATE TABLE ingest_sources (
  name            text PRIMARY KEY CHECK (name IN ('ted', 'seap')),
  -- Whether the last worker that started polls it (INGEST_SOURCES of that worker).
  enabled         boolean NOT NULL DEFAULT false,
  -- The earliest publication day the next poll asks for; it includes its own day, because a source
  -- publishes a day's notices at different times.
  watermark       date NOT NULL,
  -- Paging in progress (an iteration token, a list and its page): a restarted poller resumes here.
  cursor          jsonb,
  last_success_at timestamptz,
  last_error_at   timestamptz,
  last_error      text,
  ingested        bigint NOT NULL DEFAULT 0,
  skipped         bigint NOT NULL DEFAULT 0,
  updated_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ingested_notices (
  source      text NOT NULL,
  -- The source's own number of the notice: TED publication number, SEAP notice number.
  notice_ref  text NOT NULL,
  -- Which version of the notice was read (SEAP's errata number): a higher one is read again.
  version     integer NOT NULL DEFAULT 0,
  -- The tender it became or updated; null when it was skipped (skip_reason says why).
  tender_id   uuid REFERENCES tenders (id) ON DELETE CASCADE,
  skip_reason text,
  -- The TED publication number of the procedure (a TED notice's own; the one a SEAP notice cites),
  -- normalised as "<number>-<year>": the key that joins one procedure seen on both sources.
  ted_ref     text,
  seen_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source, notice_ref)
);
CREATE INDEX ingested_notices_ted_ref_idx ON ingested_notices (ted_ref) WHERE ted_ref IS NOT NULL;
CREATE INDEX ingested_notices_tender_idx ON ingested_notices (tender_id);

-- A procedure published on both sources is one tender; the other source's page is kept beside it.
ALTER TABLE tenders ADD COLUMN other_source_urls text[] NOT NULL DEFAULT '{}';

-- A procedure its source cancelled (SEAP: the procedure's state "Anulata") is closed whatever its
-- deadline: no longer open in the app's list, not rescored.
ALTER TABLE tenders ADD COLUMN cancelled_at timestamptz;
