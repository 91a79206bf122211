-- Feedback (issue 21): a user marks a tender scored for a company relevant or not relevant. The
-- company's profile reads its marks on the next rescore (domain/scoring/Feedback.ts); removing the
-- mark (undo) deletes the row. One mark per (company, tender); the tenant is kept for isolation checks.
CREATE TABLE tender_feedback (
  company_id uuid NOT NULL REFERENCES companies (id) ON DELETE CASCADE,
  tender_id  uuid NOT NULL REFERENCES tenders (id) ON DELETE CASCADE,
  tenant_id  uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  relevant   boolean NOT NULL,
  marked_at  timestamptz NOT NULL,
  PRIMARY KEY (company_id, tender_id)
);

-- A mark is part of the company's profile: it takes a new profile revision like a watchlist change
-- (migration 0020), so a worker's cached profile is not reused without it.
CREATE TRIGGER tender_feedback_profile_rev_insert AFTER INSERT ON tender_feedback
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION watchlists_bump_profile_rev();
CREATE TRIGGER tender_feedback_profile_rev_delete AFTER DELETE ON tender_feedback
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION watchlists_bump_profile_rev();
CREATE TRIGGER tender_feedback_profile_rev_update AFTER UPDATE ON tender_feedback
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION watchlists_bump_profile_rev_on_update();
