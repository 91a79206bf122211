-- The candidate prefilter's lookup keys, stored (issue 11, `npm run bench -- scoring`).
--
-- The GIN indexes of migrations 0005 and 0010 were on expressions, so every row a lookup returned
-- had its keys computed again (a regexp split) to map it to tenders in memory: with 250 tenders a
-- batch, their keys match nearly every watchlist and company, and a batch spent ~1.8 s in
-- scoring_keyword_anchors and ~0.8 s in scoring_text_keys. Stored generated columns compute the
-- keys once, when the row is written, and the indexes move onto them.
--
-- The prefilter's GIN indexes also lose their pending list (fastupdate off). With it, rows written
-- since the last vacuum sit in an unsorted list that every lookup scans once per searched key: right
-- after 15,000 watchlists were stored, one batch's lookup of ~3,000 CPV codes and ~550 keys took
-- 2.9 s instead of 64 ms. These tables are written far less often than they are searched.
ALTER INDEX tenders_winners_idx SET (fastupdate = off);
SELECT gin_clean_pending_list('tenders_winners_idx'::regclass);

-- A watched CPV code's candidate key: its significant digits (trailing zeros dropped, never fewer
-- than the division's 2) cut to the class, as src/domain/scoring/CpvMatch.ts watchedCpvKey. A tender
-- looks up its division, group and class prefixes. Overlapping arrays of a few keys each are cheap
-- to test; `cpv_codes && <every code of the batch's classes>` (thousands) compared each watchlist's
-- codes with each of them, 1.3 s a batch once most watchlists qualify and the planner scans them all.
CREATE FUNCTION scoring_cpv_keys(codes char(10)[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT left(significant, 4) ORDER BY left(significant, 4)), '{}')
  FROM (
    SELECT CASE WHEN length(rtrim(left(code, 8), '0')) < 2 THEN left(code, 2) ELSE rtrim(left(code, 8), '0') END
      AS significant
    FROM unnest(codes) AS code
  ) AS codes
$$;

ALTER TABLE watchlists ADD COLUMN cpv_keys text[] GENERATED ALWAYS AS (scoring_cpv_keys(cpv_codes)) STORED;
CREATE INDEX watchlists_cpv_keys_idx ON watchlists USING gin (cpv_keys) WITH (fastupdate = off)
  WHERE deleted_at IS NULL;

ALTER TABLE watchlists
  ADD COLUMN keyword_anchors text[] GENERATED ALWAYS AS (scoring_keyword_anchors(keywords)) STORED;
DROP INDEX watchlists_keyword_anchor_idx;
CREATE INDEX watchlists_keyword_anchors_idx ON watchlists USING gin (keyword_anchors) WITH (fastupdate = off)
  WHERE deleted_at IS NULL;

ALTER TABLE companies
  ADD COLUMN description_keys text[] GENERATED ALWAYS AS (scoring_text_keys(description)) STORED;
DROP INDEX companies_text_keys_idx;
CREATE INDEX companies_description_keys_idx ON companies USING gin (description_keys) WITH (fastupdate = off)
  WHERE active;

-- Only award notices' titles are looked up (the awards a company won); other notices store NULL.
ALTER TABLE tenders
  ADD COLUMN award_title_keys text[]
  GENERATED ALWAYS AS (CASE WHEN notice_type = 'award' THEN scoring_text_keys(title) END) STORED;
DROP INDEX tenders_award_text_keys_idx;
CREATE INDEX tenders_award_title_keys_idx ON tenders USING gin (award_title_keys) WITH (fastupdate = off)
  WHERE notice_type = 'award';

-- Model tsm-1.2.0 (a company known by its description alone is matched by one specific shared word,
-- Matching.TEXT_ONLY_CANDIDATE_FLOOR) stores pairs the earlier model did not: when scores exist, the
-- worker backfills (scores every open tender afresh, then rescores the rest).
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
