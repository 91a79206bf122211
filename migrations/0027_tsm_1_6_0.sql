-- Model tsm-1.6.0 (the semantic factor's scale grows with the company's own text, so a long profile
-- no longer reaches the factor's ceiling on every tender of its trade; src/domain/scoring/Semantic.ts
-- semanticScaleOf) changes stored scores: when scores exist, the worker backfills them as for 0013,
-- 0021, 0023 and 0026. No table changes: the scale is worked out from the profile the scorer loads.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
