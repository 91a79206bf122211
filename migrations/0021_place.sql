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
