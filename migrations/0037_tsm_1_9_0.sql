-- Model tsm-1.9.0 (the value fit takes the best of the watchlists' ranges instead of one range merged
-- from them, src/domain/scoring/ValueFit.ts; a watchlist that brings no candidates of its own, no codes,
-- keywords or authority, leaves a company known by its description alone on the lenient text floor,
-- src/domain/scoring/Matching.ts) changes stored scores: when scores exist, the worker backfills them
-- as for 0030. No table changes.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
