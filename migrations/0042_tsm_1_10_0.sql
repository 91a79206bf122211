-- Model tsm-1.10.0 (a company with at most one award won and no watchlist that draws candidates is
-- known mostly by its words: its text draws candidates on the lenient floor of a description-only
-- company, src/domain/scoring/Matching.ts) changes which pairs are stored: when scores exist, the worker
-- backfills them as for 0030. No table changes.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
