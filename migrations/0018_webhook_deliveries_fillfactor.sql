-- A delivery row is updated twice per attempt (started, then its outcome), and no index covers the
-- columns those updates change (status, attempts, times): with room left on its page the new
-- version is a heap-only tuple, written without touching the table's four indexes. At the default
-- fill factor (100) a freshly inserted batch of deliveries fills its pages, so every update moved
-- the row to another page and wrote all four indexes. Applies to pages written from now on.
ALTER TABLE webhook_deliveries SET (fillfactor = 70);
