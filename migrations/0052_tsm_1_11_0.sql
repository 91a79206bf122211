-- Model tsm-1.11.0 (without award history, a tender near the company's counties lifts its historical
-- factor as far as the tender is of the company's trade: src/domain/scoring/Historical.ts,
-- placeShareWithoutHistory) changes the scores of companies with counties set and no award won, and so
-- which of their pairs reach the score floor: when scores exist, the worker backfills them as for 0030.
-- No table changes.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
