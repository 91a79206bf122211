-- Text candidates (issue 11): a tender is scored for a company whose description or won-award titles
-- share specific words with it. The index keys of a text are the first 5 letters of its folded
-- content words, as src/domain/scoring/Text.ts indexKey computes them (a stem never changes its
-- first 5 letters, so a key lookup finds a superset of the stem matches; the scorer decides).
-- test/scoring/candidateKeys.test.ts keeps the SQL and TypeScript keys equal.
CREATE FUNCTION scoring_text_keys(body text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT left(word, 5) ORDER BY left(word, 5)), '{}')
  FROM regexp_split_to_table(
    lower(translate(body,
      'ăâîșțşţĂÂÎȘȚŞŢáàäéèëêíìïóòöôúùüûçñÁÀÄÉÈËÊÍÌÏÓÒÖÔÚÙÜÛÇÑ',
      'aaiststAAISTSTaaaeeeeiiioooouuuucnAAAEEEEIIIOOOOUUUUCN')),
    '[^a-z0-9]+') AS word
  WHERE word <> '' AND word <> ALL (ARRAY[
    'a', 'ai', 'al', 'ale', 'and', 'as', 'au', 'ca', 'care', 'ce', 'cu', 'cum', 'da', 'de', 'din', 'dintre',
    'este', 'for', 'fi', 'in', 'intre', 'iar', 'la', 'le', 'lor', 'mai', 'nu', 'o', 'of', 'or', 'pe',
    'pentru', 'prin', 'privind', 'sa', 'se', 'si', 'sau', 'sub', 'the', 'to', 'un', 'una', 'unei', 'unui',
    'cat', 'catre', 'fara', 'peste', 'dupa', 'acest', 'aceasta', 'acestei', 'acestui', 'conform', 'cadrul',
    'etc', 'nr', 'str', 'tip'])
$$;

-- Companies by the words of their description, and award notices by the words of their title (a
-- company's won awards are found by its fiscal code among their winners).
CREATE INDEX companies_text_keys_idx ON companies USING gin (scoring_text_keys(description)) WHERE active;
CREATE INDEX tenders_award_text_keys_idx ON tenders USING gin (scoring_text_keys(title))
  WHERE notice_type = 'award';

-- Model tsm-1.1.0 scores pairs the earlier model never stored: when scores of the earlier model
-- exist, the worker backfills (scores every open tender afresh, then rescores the rest).
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
