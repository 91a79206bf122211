-- Model tsm-1.12.0 (a won title also matches a tender work with work: the share of the tender title's
-- work words that the won title's work has, src/domain/scoring/WonTitles.ts) changes the scores of
-- companies with award history, and so which of their pairs reach the score floor: when scores exist,
-- the worker backfills them as for 0030. No table changes.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
