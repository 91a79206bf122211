-- The version of a notice a tender holds: when its source issued it (eForms' IssueDate and IssueTime).
-- An eForms change notice updates the tender of the notice it changes; with this column an older
-- version read later (the original imported again, or its failed read retried after the change)
-- no longer puts the old deadline or value back, and the tender keeps the original's publication
-- date rather than the change's. NULL: the source gives no version; the last notice read wins.
ALTER TABLE tenders ADD COLUMN source_issued_at timestamptz;
