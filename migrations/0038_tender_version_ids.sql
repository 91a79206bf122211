-- eForms: a change to a notice that was already changed names the latest version, the first change
-- notice, not the original whose id keys the tender. Each change notice's own id is kept here with
-- the tender it updated, so the next change in the chain finds that tender instead of making a second
-- one that alerts again. Read by TenderStore (`resolveVersions`), for live ingestion and imports.
CREATE TABLE tender_version_ids (
  source text NOT NULL,
  version_id text NOT NULL,
  source_notice_id text NOT NULL,
  PRIMARY KEY (source, version_id)
);
