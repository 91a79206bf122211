-- Indexes for the scoring candidate prefilter (src/infra/ScoringService.ts): the cost of scoring a
-- tender grows with its candidate companies, not with all companies.

-- Anchor of each watchlist keyword: the first 5 letters of its longest content word, folded like
-- src/domain/scoring/Text.ts keywordAnchor (test/scoring/service.test.ts keeps the two equal).
CREATE FUNCTION scoring_keyword_anchors(keywords text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT anchor ORDER BY anchor), '{}')
  FROM (
    SELECT (
      SELECT left(word, 5)
      FROM regexp_split_to_table(
        lower(translate(keyword,
          'ăâîșțşţĂÂÎȘȚŞŢáàäéèëêíìïóòöôúùüûçñÁÀÄÉÈËÊÍÌÏÓÒÖÔÚÙÜÛÇÑ',
          'aaiststAAISTSTaaaeeeeiiioooouuuucnAAAEEEEIIIOOOOUUUUCN')),
        '[^a-z0-9]+') AS word
      WHERE word <> '' AND word <> ALL (ARRAY[
        'a', 'ai', 'al', 'ale', 'and', 'as', 'au', 'ca', 'care', 'ce', 'cu', 'cum', 'da', 'de', 'din', 'dintre',
        'este', 'for', 'fi', 'in', 'intre', 'iar', 'la', 'le', 'lor', 'mai', 'nu', 'o', 'of', 'or', 'pe',
        'pentru', 'prin', 'privind', 'sa', 'se', 'si', 'sau', 'sub', 'the', 'to', 'un', 'una', 'unei', 'unui',
        'cat', 'catre', 'fara', 'peste', 'dupa', 'acest', 'aceasta', 'acestei', 'acestui', 'conform', 'cadrul',
        'etc', 'nr', 'str', 'tip'])
      ORDER BY length(word) DESC, word COLLATE "C"
      LIMIT 1
    ) AS anchor
    FROM unnest(keywords) AS keyword
  ) AS anchors
  WHERE anchor IS NOT NULL
$$;

CREATE INDEX watchlists_keyword_anchor_idx ON watchlists USING gin (scoring_keyword_anchors(keywords))
  WHERE deleted_at IS NULL;
CREATE INDEX watchlists_authority_idx ON watchlists (authority_id)
  WHERE deleted_at IS NULL AND authority_id IS NOT NULL;
-- Award notices by CPV group, for companies whose history shares a group with a new tender.
CREATE INDEX tenders_award_group_idx ON tenders (left(main_cpv, 3)) WHERE notice_type = 'award';
CREATE INDEX tenders_award_authority_idx ON tenders (authority_id) WHERE notice_type = 'award';
