-- Model tsm-1.5.0 (the cpv and historical factors also read the titles of the contracts a company
-- won: a tender whose text matches one of them strongly counts as that kind of work, whatever its
-- CPV branch; src/domain/scoring/WonTitles.ts) changes stored scores: when scores exist, the worker
-- backfills them as for 0013, 0021 and 0023. No table changes: the titles are already read with
-- each company's award history.
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
