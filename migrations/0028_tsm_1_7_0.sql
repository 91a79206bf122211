-- Model tsm-1.7.0 (the cpv factor grades a match inside a watched code by how far below it the tender
-- code lies, src/domain/scoring/CpvMatch.ts INSIDE_LEVEL_STEP; and a tender whose text reads like the
-- company's own description and keywords counts in it, capped at 0.6, src/domain/scoring/StatedText.ts)
-- changes stored scores: when scores exist, the worker backfills them as for 0013, 0021, 0023, 0026
-- and 0027. No table changes: both rules read the profile and the tender the scorer already loads.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
