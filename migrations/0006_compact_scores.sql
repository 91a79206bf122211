-- Scores are the largest table (one row per candidate pair) and are rewritten on every rescore, so
-- each row carries only what cannot be derived: the five factor scores as columns instead of a
-- jsonb breakdown (weights and contributions follow from the model version, see
-- src/domain/scoring/Model.ts), no tenant column (the company names the tenant), and the primary
-- key led by the tender so it also serves the per-tender lookups of rescoring.
ALTER TABLE tender_scores
  ADD COLUMN score_semantic   real,
  ADD COLUMN score_keyword    real,
  ADD COLUMN score_cpv        real,
  ADD COLUMN score_value_fit  real,
  ADD COLUMN score_historical real,
  ADD COLUMN cpv_type         text;

UPDATE tender_scores SET
  score_semantic   = (factors -> 'semantic' ->> 'score')::real,
  score_keyword    = (factors -> 'keyword' ->> 'score')::real,
  score_cpv        = (factors -> 'cpv' ->> 'score')::real,
  score_value_fit  = (factors -> 'value_fit' ->> 'score')::real,
  score_historical = (factors -> 'historical' ->> 'score')::real,
  cpv_type         = factors -> 'cpv' ->> 'cpv_type';

ALTER TABLE tender_scores
  ALTER COLUMN score_semantic SET NOT NULL,
  ALTER COLUMN score_keyword SET NOT NULL,
  ALTER COLUMN score_cpv SET NOT NULL,
  ALTER COLUMN score_value_fit SET NOT NULL,
  ALTER COLUMN score_historical SET NOT NULL,
  ALTER COLUMN cpv_type SET NOT NULL,
  ADD CONSTRAINT tender_scores_factor_range CHECK (
    score_semantic BETWEEN 0 AND 1 AND score_keyword BETWEEN 0 AND 1 AND score_cpv BETWEEN 0 AND 1
    AND score_value_fit BETWEEN 0 AND 1 AND score_historical BETWEEN 0 AND 1),
  ADD CONSTRAINT tender_scores_cpv_type CHECK (cpv_type IN ('primary', 'additional', 'none')),
  DROP COLUMN factors,
  DROP COLUMN tenant_id,
  DROP CONSTRAINT tender_scores_pkey,
  ADD PRIMARY KEY (tender_id, company_id);

DROP INDEX tender_scores_tender_idx;
