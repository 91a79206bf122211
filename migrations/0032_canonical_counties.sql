-- One spelling per county (src/domain/tenders/TenderRecord.ts, CountyDistance.canonicalCounty): imports
-- now store `Constanța` whether the source wrote `Constanta` (SEAP's CSV export), `JUDETUL CONSTANTA` or
-- a NUTS code; this rewrites the counties stored before, by the same rule: folded (no diacritics, lower
-- case), a leading "judetul", "jud.", "municipiul" or "mun." dropped, letters only. A name that is no
-- county stays as written.
UPDATE contracting_authorities AS a
SET county = c.name
FROM (VALUES
  ('alba', 'Alba'),
  ('arad', 'Arad'),
  ('arges', 'Argeș'),
  ('bacau', 'Bacău'),
  ('bihor', 'Bihor'),
  ('bistritanasaud', 'Bistrița-Năsăud'),
  ('botosani', 'Botoșani'),
  ('brasov', 'Brașov'),
  ('braila', 'Brăila'),
  ('bucuresti', 'București'),
  ('buzau', 'Buzău'),
  ('carasseverin', 'Caraș-Severin'),
  ('calarasi', 'Călărași'),
  ('cluj', 'Cluj'),
  ('constanta', 'Constanța'),
  ('covasna', 'Covasna'),
  ('dambovita', 'Dâmbovița'),
  ('dolj', 'Dolj'),
  ('galati', 'Galați'),
  ('giurgiu', 'Giurgiu'),
  ('gorj', 'Gorj'),
  ('harghita', 'Harghita'),
  ('hunedoara', 'Hunedoara'),
  ('ialomita', 'Ialomița'),
  ('iasi', 'Iași'),
  ('ilfov', 'Ilfov'),
  ('maramures', 'Maramureș'),
  ('mehedinti', 'Mehedinți'),
  ('mures', 'Mureș'),
  ('neamt', 'Neamț'),
  ('olt', 'Olt'),
  ('prahova', 'Prahova'),
  ('satumare', 'Satu Mare'),
  ('salaj', 'Sălaj'),
  ('sibiu', 'Sibiu'),
  ('suceava', 'Suceava'),
  ('teleorman', 'Teleorman'),
  ('timis', 'Timiș'),
  ('tulcea', 'Tulcea'),
  ('vaslui', 'Vaslui'),
  ('valcea', 'Vâlcea'),
  ('vrancea', 'Vrancea')
) AS c(folded, name)
WHERE a.county IS DISTINCT FROM c.name
  AND regexp_replace(
        regexp_replace(
          lower(translate(a.county, 'ăâîșțşţĂÂÎȘȚŞŢ', 'aaiststAAISTST')),
          '^\s*(judetul|jud\.?|municipiul|mun\.?)\s+', ''),
        '[^a-z]', '', 'g') = c.folded;
