-- CPV labels with the comma-below ș ț Romanian uses: the published table spells them with cedillas
-- (ş ţ), and a table filled before the loader converted them (infra/tenders/CpvTable.ts) is corrected
-- here once. On a fresh database the table is still empty at this point: the loader fills it after
-- the migrations, already converted.
UPDATE cpv_codes
SET label_ro = translate(label_ro, 'şţŞŢ', 'șțȘȚ'),
    label_en = translate(label_en, 'şţŞŢ', 'șțȘȚ')
WHERE label_ro ~ '[şţŞŢ]' OR label_en ~ '[şţŞŢ]';
