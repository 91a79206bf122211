-- Place (issue 21): where a company works and where a watchlist looks.
--
-- companies.counties: the counties the company says it works in (Counties.ts spelling). NULL, the
-- default, means "not set": the scorer infers them from the authorities' counties of the awards it
-- won (src/domain/scoring/Place.ts), so nothing needs filling in for the model to use place.
ALTER TABLE companies ADD COLUMN counties text[];

-- watchlists.counties: the counties a watchlist is limited to (the tender's authority county);
-- empty, the default, is anywhere, as every watchlist was before.
ALTER TABLE watchlists ADD COLUMN counties text[] NOT NULL DEFAULT '{}';

-- Model tsm-1.3.0 (the historical factor measures how near a tender is to the company's counties)
-- changes stored scores: when scores exist, the worker backfills them as for 0013.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);

-- A company's counties are part of its profile: a change takes a new profile revision (migration
-- 0020), so a worker's cached profile is not reused without it.
CREATE OR REPLACE FUNCTION companies_bump_profile_rev() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.tenant_id, NEW.description, NEW.fiscal_code, NEW.active, NEW.counties)
     IS DISTINCT FROM (OLD.tenant_id, OLD.description, OLD.fiscal_code, OLD.active, OLD.counties) THEN
    NEW.profile_rev := nextval('company_profile_rev_seq');
  END IF;
  RETURN NEW;
END $$;
