-- Cursor snapshots that hold under late scoring and rescoring (issue 13).
--
-- A list or export cursor carries the PostgreSQL snapshot of page 1 (pg_current_snapshot()), and
-- later pages rebuild exactly what page 1 could see: a score row version belongs to the snapshot
-- when the transaction that wrote it had committed before page 1 (pg_visible_in_snapshot) and the
-- one that replaced or removed it had not. A sequence or timestamp cannot do this: numbers are
-- taken before commit, so a scoring batch that commits after page 1 can hold numbers below the bound.
--
-- written_xid: the (top-level, 64-bit) transaction that wrote the row's current content. Existing
-- rows get 1, older than any snapshot, so they belong to every snapshot (and the column is added
-- without rewriting the table).
ALTER TABLE tender_scores ADD COLUMN written_xid xid8 NOT NULL DEFAULT '1';
ALTER TABLE tender_scores ALTER COLUMN written_xid SET DEFAULT pg_current_xact_id();

-- Replaced and removed score versions, kept while cursors may still need them (the worker prunes
-- versions superseded more than a day ago). No foreign keys: a version outlives its company or tender.
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
);
CREATE INDEX tender_score_history_list_idx
  ON tender_score_history (company_id, overall_score DESC, tender_publish_date DESC, tender_id);
CREATE INDEX tender_score_history_export_idx ON tender_score_history (company_id, tender_publish_date, tender_id);
CREATE INDEX tender_score_history_age_idx ON tender_score_history (superseded_at);

-- An update that changes what a reader sees keeps the old version and stamps the new one. A row
-- written earlier in the same transaction was never visible to anyone: nothing to keep.
CREATE FUNCTION tender_scores_keep_replaced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.written_xid <> pg_current_xact_id() THEN
    INSERT INTO tender_score_history (company_id, tender_id, overall_score, overall_confidence, verdict,
      score_semantic, score_keyword, score_cpv, score_value_fit, score_historical, cpv_type, model_version,
      scored_at, tender_publish_date, tender_ingest_seq, written_xid, superseded_xid)
    VALUES (OLD.company_id, OLD.tender_id, OLD.overall_score, OLD.overall_confidence, OLD.verdict,
      OLD.score_semantic, OLD.score_keyword, OLD.score_cpv, OLD.score_value_fit, OLD.score_historical,
      OLD.cpv_type, OLD.model_version, OLD.scored_at, OLD.tender_publish_date, OLD.tender_ingest_seq,
      OLD.written_xid, pg_current_xact_id());
  END IF;
  NEW.written_xid := pg_current_xact_id();
  RETURN NEW;
END $$;

CREATE TRIGGER tender_scores_keep_replaced BEFORE UPDATE ON tender_scores FOR EACH ROW
  WHEN ((OLD.overall_score, OLD.overall_confidence, OLD.verdict, OLD.score_semantic, OLD.score_keyword,
         OLD.score_cpv, OLD.score_value_fit, OLD.score_historical, OLD.cpv_type, OLD.model_version,
         OLD.tender_publish_date)
        IS DISTINCT FROM
        (NEW.overall_score, NEW.overall_confidence, NEW.verdict, NEW.score_semantic, NEW.score_keyword,
         NEW.score_cpv, NEW.score_value_fit, NEW.score_historical, NEW.cpv_type, NEW.model_version,
         NEW.tender_publish_date))
  EXECUTE FUNCTION tender_scores_keep_replaced();

-- Removed rows (pairs that stopped being candidates, cascades) are kept as versions too, set-based.
CREATE FUNCTION tender_scores_keep_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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
