-- Scores partitioned by the tender's publication month (issue 23: data lifecycle).
--
-- tender_scores and tender_score_history (the replaced versions cursors read, 0012) become range-
-- partitioned on tender_publish_date, one partition per calendar month (UTC) plus a default one that
-- catches a row whose month has no partition yet. Retention (workers/ScoreRetention.ts) then drops a
-- whole month once every tender in it closed long enough ago, instead of deleting its rows one by one.
--
-- A unique key of a partitioned table must contain the partition key: the primary key becomes
-- (tender_id, company_id, tender_publish_date). One row per (company, tender) is kept by the one
-- writer (ScoreWriter): it removes a pair's row whose publish date moved (a change notice) before
-- it upserts on the new key.
--
-- The list and export indexes keep their shape on every partition. A company's list reads each
-- partition's index and merges them (Merge Append): pruning does not apply by company, the cost
-- is one index descent per partition (BENCHMARKS.md, "Issue 23: partitioning").

-- Creates the monthly partitions of both tables for the months from `from_month` to `to_month`
-- (inclusive). A month whose rows already sit in the default partition is split out of it: the rows
-- move into the new partition (a plain table first, attached once filled), so the default partition
-- stays a safety net, not a home. UTC throughout, so month bounds are midnights UTC.
CREATE FUNCTION score_partitions_ensure(from_month timestamptz, to_month timestamptz) RETURNS integer
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
    FOREACH parent IN ARRAY ARRAY['tender_scores', 'tender_score_history'] LOOP
      part := parent || '_p' || to_char(month_start, 'YYYY_MM');
      CONTINUE WHEN to_regclass(part) IS NOT NULL;
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE tender_publish_date >= $1 AND tender_publish_date < $2)',
                     parent || '_default')
        INTO in_default USING month_start, month_end;
      IF in_default THEN
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part, parent);
        -- A direct DELETE on the partition fires no statement trigger of the parent: the rows move,
        -- they are not versions to keep.
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

ALTER TABLE tender_scores RENAME TO tender_scores_unpartitioned;
ALTER TABLE tender_score_history RENAME TO tender_score_history_unpartitioned;
DROP TRIGGER tender_scores_keep_replaced ON tender_scores_unpartitioned;
DROP TRIGGER tender_scores_keep_removed ON tender_scores_unpartitioned;

CREATE TABLE tender_scores (
  company_id          uuid NOT NULL,
  tender_id           uuid NOT NULL,
  overall_score       smallint NOT NULL CHECK (overall_score BETWEEN 0 AND 100),
  overall_confidence  real NOT NULL CHECK (overall_confidence BETWEEN 0 AND 1),
  verdict             text NOT NULL CHECK (verdict IN ('GO', 'RESEARCH', 'SKIP')),
  model_version       text NOT NULL,
  scored_at           timestamptz NOT NULL,
  tender_publish_date timestamptz NOT NULL,
  tender_ingest_seq   bigint NOT NULL,
  score_semantic      real NOT NULL,
  score_keyword       real NOT NULL,
  score_cpv           real NOT NULL,
  score_value_fit     real NOT NULL,
  score_historical    real NOT NULL,
  cpv_type            text NOT NULL,
  written_xid         xid8 NOT NULL DEFAULT pg_current_xact_id(),
  CONSTRAINT tender_scores_factor_range CHECK (
    score_semantic BETWEEN 0 AND 1 AND score_keyword BETWEEN 0 AND 1 AND score_cpv BETWEEN 0 AND 1
    AND score_value_fit BETWEEN 0 AND 1 AND score_historical BETWEEN 0 AND 1),
  CONSTRAINT tender_scores_cpv_type CHECK (cpv_type IN ('primary', 'additional', 'none'))
) PARTITION BY RANGE (tender_publish_date);
CREATE TABLE tender_scores_default PARTITION OF tender_scores DEFAULT;

CREATE TABLE tender_score_history (
  company_id          uuid NOT NULL,
  tender_id           uuid NOT NULL,
  overall_score       smallint NOT NULL,
  overall_confidence  real NOT NULL,
  verdict             text NOT NULL,
  score_semantic      real NOT NULL,
  score_keyword       real NOT NULL,
  score_cpv           real NOT NULL,
  score_value_fit     real NOT NULL,
  score_historical    real NOT NULL,
  cpv_type            text NOT NULL,
  model_version       text NOT NULL,
  scored_at           timestamptz NOT NULL,
  tender_publish_date timestamptz NOT NULL,
  tender_ingest_seq   bigint NOT NULL,
  written_xid         xid8 NOT NULL,
  superseded_xid      xid8 NOT NULL,
  superseded_at       timestamptz NOT NULL DEFAULT now()
) PARTITION BY RANGE (tender_publish_date);
CREATE TABLE tender_score_history_default PARTITION OF tender_score_history DEFAULT;

-- Every month that has a score or a version, up to three months ahead (the worker keeps that lead).
SELECT score_partitions_ensure(
  least(now() - interval '1 month',
        (SELECT min(tender_publish_date) FROM tender_scores_unpartitioned),
        (SELECT min(tender_publish_date) FROM tender_score_history_unpartitioned)),
  now() + interval '3 months');

-- Copied without indexes, which are built once afterwards (faster than maintaining them per row).
INSERT INTO tender_scores (company_id, tender_id, overall_score, overall_confidence, verdict, model_version,
  scored_at, tender_publish_date, tender_ingest_seq, score_semantic, score_keyword, score_cpv, score_value_fit,
  score_historical, cpv_type, written_xid)
SELECT company_id, tender_id, overall_score, overall_confidence, verdict, model_version, scored_at,
  tender_publish_date, tender_ingest_seq, score_semantic, score_keyword, score_cpv, score_value_fit,
  score_historical, cpv_type, written_xid
FROM tender_scores_unpartitioned;

INSERT INTO tender_score_history SELECT * FROM tender_score_history_unpartitioned;

DROP TABLE tender_scores_unpartitioned;
DROP TABLE tender_score_history_unpartitioned;

ALTER TABLE tender_scores ADD CONSTRAINT tender_scores_pkey PRIMARY KEY (tender_id, company_id, tender_publish_date);
CREATE INDEX tender_scores_list_idx
  ON tender_scores (company_id, overall_score DESC, tender_publish_date DESC, tender_id);
CREATE INDEX tender_scores_export_idx ON tender_scores (company_id, tender_publish_date, tender_id);

CREATE INDEX tender_score_history_list_idx
  ON tender_score_history (company_id, overall_score DESC, tender_publish_date DESC, tender_id);
CREATE INDEX tender_score_history_export_idx ON tender_score_history (company_id, tender_publish_date, tender_id);
CREATE INDEX tender_score_history_age_idx ON tender_score_history (superseded_at);

-- The triggers of 0012, on the partitioned table (a row trigger is cloned onto every partition; the
-- statement trigger's transition table holds the rows of all of them). The publish date is no longer
-- compared: an update cannot change it (it is part of the key the upsert matched).
CREATE TRIGGER tender_scores_keep_replaced BEFORE UPDATE ON tender_scores FOR EACH ROW
  WHEN ((OLD.overall_score, OLD.overall_confidence, OLD.verdict, OLD.score_semantic, OLD.score_keyword,
         OLD.score_cpv, OLD.score_value_fit, OLD.score_historical, OLD.cpv_type, OLD.model_version)
        IS DISTINCT FROM
        (NEW.overall_score, NEW.overall_confidence, NEW.verdict, NEW.score_semantic, NEW.score_keyword,
         NEW.score_cpv, NEW.score_value_fit, NEW.score_historical, NEW.cpv_type, NEW.model_version))
  EXECUTE FUNCTION tender_scores_keep_replaced();

-- Retention (closed tenders' scores past SCORE_RETENTION_DAYS) removes rows no cursor is owed: it
-- sets `tss.retention` in its transaction and the removed rows are not kept as versions.
CREATE OR REPLACE FUNCTION tender_scores_keep_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('tss.retention', true) = 'on' THEN
    RETURN NULL;
  END IF;
  INSERT INTO tender_score_history (company_id, tender_id, overall_score, overall_confidence, verdict,
    score_semantic, score_keyword, score_cpv, score_value_fit, score_historical, cpv_type, model_version,
    scored_at, tender_publish_date, tender_ingest_seq, written_xid, superseded_xid)
  SELECT company_id, tender_id, overall_score, overall_confidence, verdict, score_semantic, score_keyword,
    score_cpv, score_value_fit, score_historical, cpv_type, model_version, scored_at, tender_publish_date,
    tender_ingest_seq, written_xid, pg_current_xact_id()
  FROM removed WHERE written_xid <> pg_current_xact_id();
  RETURN NULL;
END $$;

CREATE TRIGGER tender_scores_keep_removed AFTER DELETE ON tender_scores
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION tender_scores_keep_removed();

-- Retention finds closed tenders by the instant they closed (deadline passed, or cancelled).
CREATE INDEX tenders_closed_at_idx ON tenders (least(deadline, cancelled_at));

ANALYZE tender_scores;
ANALYZE tender_score_history;
