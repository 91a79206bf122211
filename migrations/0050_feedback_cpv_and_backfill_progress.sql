-- Feedback marks count by the marked tender's main CPV as it is now (ScoringReads.feedbackOf), so a
-- change notice that changes that code changes the profile of every company that marked the tender:
-- it takes a new profile revision (migration 0020), so no worker reuses the profile it cached, and a
-- scoring write computed from the one of before queues the company again (ScoreWriter). TenderStore
-- queues the companies' rescores in the notice's transaction. Only rows whose code changed fire it.
CREATE FUNCTION tenders_bump_markers_profile_rev() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE companies c SET profile_rev = nextval('company_profile_rev_seq')
  WHERE c.id IN (SELECT f.company_id FROM tender_feedback f WHERE f.tender_id = NEW.id);
  RETURN NULL;
END $$;

CREATE TRIGGER tenders_markers_profile_rev AFTER UPDATE OF main_cpv ON tenders FOR EACH ROW
  WHEN (OLD.main_cpv IS DISTINCT FROM NEW.main_cpv) EXECUTE FUNCTION tenders_bump_markers_profile_rev();

-- The marks of a tender are looked up by the tender: by that trigger, and by TenderStore for the
-- stored tenders of each chunk it writes (the primary key leads with the company).
CREATE INDEX tender_feedback_tender_idx ON tender_feedback (tender_id);

-- A model version's backfill (ScoringService.backfillModelVersion) first scores every open tender
-- afresh, page by page in ingest order, which also adds the pairs only the new model stores. Its
-- progress is kept here, so a backfill resumed after a crash goes on from the last page written:
-- whether rows of another version remain does not tell whether that pass finished.
CREATE TABLE score_backfills (
  model_version  text PRIMARY KEY,
  -- The open tenders scored so far: those up to this ingest_seq.
  open_after_seq bigint NOT NULL DEFAULT 0,
  open_done      boolean NOT NULL DEFAULT false
);
