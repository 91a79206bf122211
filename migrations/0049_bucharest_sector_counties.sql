-- București's sectors are București (CountyDistance.canonicalCounty): imports now store `București`
-- for an address written `Bucuresti Sector 4` or `Municipiul București, Sectorul 2`, but 0032's rule
-- did not know sectors, so authorities stored before keep those spellings, and an import never
-- rewrites a stored county (TenderStore keeps the first one). The app's county filter compares the
-- stored name, so their tenders were missing from București's list. This rewrites them by the same
-- rule: folded (no diacritics, lower case), an optional "municipiul"/"mun." then "bucuresti", an
-- optional comma or dash, "sector"/"sectorul" and a sector number 1-6.
UPDATE contracting_authorities
SET county = 'București'
WHERE county IS DISTINCT FROM 'București'
  AND lower(translate(county, 'ăâîșțşţĂÂÎȘȚŞŢ', 'aaiststAAISTST'))
      ~ '^\s*(?:(?:municipiul|mun\.?)\s*)?bucuresti\s*[,-]?\s*sector(?:ul)?\s*[1-6]\s*$';
