-- Scoring writes ~70,000 score rows per batch of 250 tenders (issue 23, `npm run bench -- scoring`).
-- Each row's two foreign-key checks ran as one lookup per row that also locks the referenced company
-- and tender (FOR KEY SHARE); with two batches in flight the same ~5,000 company rows are locked by
-- both transactions, which makes multixacts. Measured on the bench's database: 0.45 s of a batch's
-- 1.6 s insert alone, about half of it with two concurrent batches.
--
-- The scores keep what the keys gave them: rows go when their company or tender is deleted (the
-- triggers below, set-based). What is lost is the check at insert: scoring writes only pairs of a
-- company and a tender it has just read, and companies are deactivated, not deleted, by the service.
ALTER TABLE tender_scores
  DROP CONSTRAINT tender_scores_company_id_fkey,
  DROP CONSTRAINT tender_scores_tender_id_fkey;

CREATE FUNCTION tender_scores_remove_of_companies() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tender_scores s USING removed r WHERE s.company_id = r.id;
  RETURN NULL;
END $$;

CREATE TRIGGER companies_remove_scores AFTER DELETE ON companies
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION tender_scores_remove_of_companies();

CREATE FUNCTION tender_scores_remove_of_tenders() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM tender_scores s USING removed r WHERE s.tender_id = r.id;
  RETURN NULL;
END $$;

CREATE TRIGGER tenders_remove_scores AFTER DELETE ON tenders
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION tender_scores_remove_of_tenders();
