-- A scoring worker keeps the companies' prepared profiles between jobs (issue 19: re-reading and
-- preparing ~5,000 of them took 2-3 s of every `tenders.score` job). A profile is made of the
-- company row, its watchlists and the award notices that name its fiscal code as a winner, so each
-- company carries a revision, drawn from one sequence, that every change to any of those takes anew
-- in the same transaction. Triggers, not the writers, bump it: no writer (API, CLI, ingestion, a
-- hand-written statement) can forget to. A worker reuses a profile only while its revision is the one
-- it was read at (infra/scoring/CompanyProfileCache.ts).
CREATE SEQUENCE company_profile_rev_seq;

ALTER TABLE companies ADD COLUMN profile_rev bigint NOT NULL DEFAULT nextval('company_profile_rev_seq');

-- The company row: what scoring reads of it (name and updated_at are not part of a profile).
CREATE FUNCTION companies_bump_profile_rev() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.tenant_id, NEW.description, NEW.fiscal_code, NEW.active)
     IS DISTINCT FROM (OLD.tenant_id, OLD.description, OLD.fiscal_code, OLD.active) THEN
    NEW.profile_rev := nextval('company_profile_rev_seq');
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER companies_profile_rev BEFORE UPDATE ON companies
  FOR EACH ROW EXECUTE FUNCTION companies_bump_profile_rev();

-- Watchlists: any insert, update or delete (set-based, one statement per statement).
CREATE FUNCTION watchlists_bump_profile_rev() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE companies c SET profile_rev = nextval('company_profile_rev_seq')
  WHERE c.id IN (SELECT company_id FROM changed);
  RETURN NULL;
END $$;

CREATE FUNCTION watchlists_bump_profile_rev_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE companies c SET profile_rev = nextval('company_profile_rev_seq')
  WHERE c.id IN (SELECT company_id FROM old_rows UNION SELECT company_id FROM changed);
  RETURN NULL;
END $$;

CREATE TRIGGER watchlists_profile_rev_insert AFTER INSERT ON watchlists
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION watchlists_bump_profile_rev();
CREATE TRIGGER watchlists_profile_rev_delete AFTER DELETE ON watchlists
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION watchlists_bump_profile_rev();
CREATE TRIGGER watchlists_profile_rev_update AFTER UPDATE ON watchlists
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION watchlists_bump_profile_rev_on_update();

-- Award notices: the winners they name (by fiscal code), before and after the change.
CREATE FUNCTION tenders_bump_winners_profile_rev() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE companies c SET profile_rev = nextval('company_profile_rev_seq')
  WHERE c.fiscal_code IN (SELECT unnest(winner_fiscal_codes) FROM changed WHERE notice_type = 'award');
  RETURN NULL;
END $$;

CREATE FUNCTION tenders_bump_winners_profile_rev_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE companies c SET profile_rev = nextval('company_profile_rev_seq')
  WHERE c.fiscal_code IN (
    SELECT unnest(winner_fiscal_codes) FROM old_rows WHERE notice_type = 'award'
    UNION SELECT unnest(winner_fiscal_codes) FROM changed WHERE notice_type = 'award');
  RETURN NULL;
END $$;

CREATE TRIGGER tenders_profile_rev_insert AFTER INSERT ON tenders
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION tenders_bump_winners_profile_rev();
CREATE TRIGGER tenders_profile_rev_delete AFTER DELETE ON tenders
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION tenders_bump_winners_profile_rev();
CREATE TRIGGER tenders_profile_rev_update AFTER UPDATE ON tenders
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS changed
  FOR EACH STATEMENT EXECUTE FUNCTION tenders_bump_winners_profile_rev_on_update();
