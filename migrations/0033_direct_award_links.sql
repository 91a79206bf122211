-- The page of a direct award notice of SEAP's CSV export (`item.daAwardNoticeId`) is
-- /pub/direct-acquisition/award-notice/view/{id}; imports before this wrote /pub/direct-acquisitions/view/{id},
-- a path SEAP does not serve (its plural form is the list page). Rewrites the links stored.
UPDATE tenders
SET source_url = 'https://e-licitatie.ro/pub/direct-acquisition/award-notice/view/'
  || substr(source_url, length('https://e-licitatie.ro/pub/direct-acquisitions/view/') + 1)
WHERE source_url LIKE 'https://e-licitatie.ro/pub/direct-acquisitions/view/%';
