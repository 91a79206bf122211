-- A source's Retry-After (a 429 or 503 that names a wait) was kept by the client of the process that
-- met it, but notice retry jobs run on every worker: another worker asked the source at once. The
-- end of the source's last wait is kept here, read before every request to the source by any process
-- (src/infra/ingest/SourceClient.ts), and only ever moved later. Null: never asked to wait.
ALTER TABLE ingest_sources ADD COLUMN blocked_until timestamptz;
