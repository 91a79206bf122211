-- Model tsm-1.8.0 (a lower-case "pt" is read as "pentru", a function word, while the capitals "PT",
-- the technical design, stay a word, src/domain/scoring/Text.ts; and each factor's contribution is
-- weight × score × 100 rounded in exact hundredths, a half up, src/domain/scoring/Model.ts) changes
-- stored scores: when scores exist, the worker backfills them as for 0013, 0021, 0023, 0026, 0027
-- and 0028. No table changes.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
