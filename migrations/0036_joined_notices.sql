-- A notice that joined the other source's tender of the same procedure keeps updating that tender: its
-- erratum (same notice number) or change notice (same notice id, eForms ChangedNoticeIdentifier) finds
-- the join here instead of matching the procedure's facts again, which a moved deadline no longer
-- matches (a second tender, alerting again). Rows read before this column name no notice id; a SEAP
-- erratum still finds them by its notice number.
ALTER TABLE ingested_notices ADD COLUMN source_notice_id text;
CREATE INDEX ingested_notices_notice_id_idx ON ingested_notices (source, source_notice_id)
  WHERE source_notice_id IS NOT NULL;

-- The SEAP poller asks a day's list on that day only; an erratum or a cancellation published days
-- later was never read. Once a Bucharest day it asks the contract-notice lists of the days before
-- again (INGEST_SEAP_REVISIT_DAYS); this is the day it last did.
ALTER TABLE ingest_sources ADD COLUMN revisited_on date;
