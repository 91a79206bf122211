-- Alerts and match events partitioned by the tender's publication month, like the scores (0024).
--
-- They are the other tables that grow per pair (one alert per watchlist a tender reaches, one event
-- per company and tender): partitioned on the same key, a month's alerts and events sit in partitions
-- of the same month as its scores, and retention drops them together once every tender of the month
-- closed long enough ago (infra/scoring/ScoreRetention.ts).
--
-- Each table gets a `tender_publish_date` column, copied from the tender. A unique key of a
-- partitioned table must contain the partition key, so the keys become (id, tender_publish_date),
-- (watchlist_id, tender_id, tender_publish_date) and (company_id, tender_id, tender_publish_date).
-- They stay one row per (watchlist, tender) and (company, tender) because the date follows the
-- tender: when a change notice moves a tender's publication date, the trigger below moves its alerts
-- and events to the new month (an UPDATE of the partition key moves the row), so the writers' upserts
-- on the new date find them.
--
-- Webhook deliveries keep a table of their own (one row per event and webhook; they go 30 days after
-- they ended: README, "Data lifecycle") and no longer reference match_events by a foreign key: a
-- delivery holds the body it sends and needs nothing of its event, and a key into a partitioned
-- table would stop strays from moving out of the default partition (their DELETE would cascade to
-- the deliveries) and a month from being dropped while a delivery still names one of its events.
-- A delivery ends within hours and goes 30 days later; its event's month goes no sooner than
-- SCORE_RETENTION_DAYS (180 by default) after the month's last tender closed.

-- The monthly partitions of every table partitioned by tender_publish_date, as in 0024.
CREATE OR REPLACE FUNCTION score_partitions_ensure(from_month timestamptz, to_month timestamptz) RETURNS integer
LANGUAGE plpgsql SET timezone = 'UTC' AS $$
DECLARE
  month_start timestamptz := date_trunc('month', from_month);
  month_end   timestamptz;
  parent      text;
  part        text;
  created     integer := 0;
  in_default  boolean;
BEGIN
  WHILE month_start <= to_month LOOP
    month_end := month_start + interval '1 month';
    FOREACH parent IN ARRAY ARRAY['tender_scores', 'tender_score_history', 'alerts', 'match_events'] LOOP
      part := parent || '_p' || to_char(month_start, 'YYYY_MM');
      CONTINUE WHEN to_regclass(part) IS NOT NULL;
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE tender_publish_date >= $1 AND tender_publish_date < $2)',
                     parent || '_default')
        INTO in_default USING month_start, month_end;
      IF in_default THEN
        -- Rows of the month in the default partition move into the new one, as in 0024.
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, parent);
        EXECUTE format('WITH moved AS (DELETE FROM %I WHERE tender_publish_date >= $1 AND tender_publish_date < $2 RETURNING *)
                        INSERT INTO %I SELECT * FROM moved', parent || '_default', part)
          USING month_start, month_end;
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                       parent, part, month_start, month_end);
      ELSE
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
                       part, parent, month_start, month_end);
      END IF;
      created := created + 1;
    END LOOP;
    month_start := month_end;
  END LOOP;
  RETURN created;
END $$;

ALTER TABLE alerts RENAME TO alerts_unpartitioned;
ALTER TABLE match_events RENAME TO match_events_unpartitioned;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_id_fkey;

CREATE TABLE alerts (
  id                  uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id           uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  company_id          uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  watchlist_id        uuid NOT NULL REFERENCES watchlists (id) ON DELETE CASCADE,
  tender_id           uuid NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  score               smallint NOT NULL CHECK (score BETWEEN 0 AND 100),
  verdict             text NOT NULL CHECK (verdict IN ('GO', 'RESEARCH', 'SKIP')),
  read                boolean NOT NULL DEFAULT false,
  created_at          timestamptz NOT NULL DEFAULT now(),
  tender_publish_date timestamptz NOT NULL
) PARTITION BY RANGE (tender_publish_date);
CREATE TABLE alerts_default PARTITION OF alerts DEFAULT;

CREATE TABLE match_events (
  id                  uuid NOT NULL DEFAULT gen_random_uuid(),
  tenant_id           uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  company_id          uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  tender_id           uuid NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  payload             jsonb NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  tender_publish_date timestamptz NOT NULL
) PARTITION BY RANGE (tender_publish_date);
CREATE TABLE match_events_default PARTITION OF match_events DEFAULT;

-- The months that already have score partitions, and every month with an alert or an event.
SELECT score_partitions_ensure(
  least(now() - interval '1 month',
        (SELECT min(t.publish_date) FROM alerts_unpartitioned a JOIN tenders t ON t.id = a.tender_id),
        (SELECT min(t.publish_date) FROM match_events_unpartitioned e JOIN tenders t ON t.id = e.tender_id),
        (SELECT min(tender_publish_date) FROM tender_scores),
        (SELECT min(tender_publish_date) FROM tender_score_history)),
  greatest(now() + interval '3 months',
           (SELECT max(tender_publish_date) FROM tender_scores),
           (SELECT max(tender_publish_date) FROM tender_score_history)));

-- Copied without indexes, which are built once afterwards.
INSERT INTO alerts (id, tenant_id, company_id, watchlist_id, tender_id, score, verdict, read, created_at,
                    tender_publish_date)
SELECT a.id, a.tenant_id, a.company_id, a.watchlist_id, a.tender_id, a.score, a.verdict, a.read, a.created_at,
       t.publish_date
FROM alerts_unpartitioned a JOIN tenders t ON t.id = a.tender_id;

INSERT INTO match_events (id, tenant_id, company_id, tender_id, payload, created_at, tender_publish_date)
SELECT e.id, e.tenant_id, e.company_id, e.tender_id, e.payload, e.created_at, t.publish_date
FROM match_events_unpartitioned e JOIN tenders t ON t.id = e.tender_id;

DROP TABLE alerts_unpartitioned;
DROP TABLE match_events_unpartitioned;

ALTER TABLE alerts ADD CONSTRAINT alerts_pkey PRIMARY KEY (id, tender_publish_date);
ALTER TABLE alerts ADD CONSTRAINT alerts_watchlist_tender_key UNIQUE (watchlist_id, tender_id, tender_publish_date);
CREATE INDEX alerts_tenant_created_idx ON alerts (tenant_id, created_at DESC, id DESC);
CREATE INDEX alerts_tenant_unread_idx ON alerts (tenant_id) WHERE NOT read;
-- Retention's batched delete finds a closed tender's alerts.
CREATE INDEX alerts_tender_idx ON alerts (tender_id);

ALTER TABLE match_events ADD CONSTRAINT match_events_pkey PRIMARY KEY (id, tender_publish_date);
ALTER TABLE match_events ADD CONSTRAINT match_events_company_tender_key
  UNIQUE (company_id, tender_id, tender_publish_date);
CREATE INDEX match_events_tenant_idx ON match_events (tenant_id, created_at);
CREATE INDEX match_events_tender_idx ON match_events (tender_id);

-- A change notice that moves a tender's publication date moves its alerts and events to the new
-- month (the scores move in ScoreWriter, which rewrites the pair anyway).
CREATE FUNCTION tenders_move_matches() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE alerts SET tender_publish_date = NEW.publish_date
  WHERE tender_id = NEW.id AND tender_publish_date = OLD.publish_date;
  UPDATE match_events SET tender_publish_date = NEW.publish_date
  WHERE tender_id = NEW.id AND tender_publish_date = OLD.publish_date;
  RETURN NULL;
END $$;

CREATE TRIGGER tenders_move_matches AFTER UPDATE OF publish_date ON tenders FOR EACH ROW
  WHEN (OLD.publish_date IS DISTINCT FROM NEW.publish_date) EXECUTE FUNCTION tenders_move_matches();

-- Delivery retention finds ended deliveries by when they last changed.
CREATE INDEX webhook_deliveries_ended_idx ON webhook_deliveries (updated_at)
  WHERE status IN ('succeeded', 'failed', 'webhook_deleted');

ANALYZE alerts;
ANALYZE match_events;
