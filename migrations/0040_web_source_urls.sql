-- A notice's link is kept only when it is an absolute http(s) URL with a host, with no space or
-- control character inside (domain/tenders/SourceUrl.ts, applied to every notice taken in from now
-- on); links stored before that rule are brought under it: anything else becomes '' ("no page"),
-- in `source_url` and in the other sources' links of a joined notice.
UPDATE tenders
SET source_url = ''
WHERE source_url <> ''
  AND (source_url !~* '^https?://[^/?#:@[:space:][:cntrl:]]' OR source_url ~ '[[:space:][:cntrl:]]');

UPDATE tenders
SET other_source_urls = ARRAY(
  SELECT link FROM unnest(other_source_urls) WITH ORDINALITY AS o(link, n)
  WHERE link ~* '^https?://[^/?#:@[:space:][:cntrl:]]' AND link !~ '[[:space:][:cntrl:]]'
  ORDER BY n)
WHERE EXISTS (
  SELECT 1 FROM unnest(other_source_urls) AS o(link)
  WHERE link !~* '^https?://[^/?#:@[:space:][:cntrl:]]' OR link ~ '[[:space:][:cntrl:]]');
