-- A source is polled while a worker that polls it says so (IngestState.heartbeat), not as the last
-- worker to start said: each worker wrote its own INGEST_SOURCES over the others', so a worker that
-- does not poll a source marked it off at start, and /ready and the ingest gauges dropped it.
ALTER TABLE ingest_sources DROP COLUMN enabled;
-- Until when a poller of the source has vouched for itself: renewed every minute by each worker
-- that polls it (and at every poll), for 3 minutes. Past it, no worker polls the source.
ALTER TABLE ingest_sources ADD COLUMN poller_alive_until timestamptz;

-- The poll lease of each source (PollLease): held by one poll at a time until `leased_until`, which
-- the poll's heartbeat renews while it runs. Taking it bumps `epoch`, the fencing token: each page
-- the poll takes in checks it in its transaction, so a poll that lost its lease (its worker stalled
-- past it, and another poll took it) takes nothing in. A lease on a row, not on a connection: a
-- dropped connection no longer frees it while its poll still runs.
CREATE TABLE ingest_poll_leases (
  source       text PRIMARY KEY CHECK (source IN ('ted', 'seap')),
  epoch        bigint NOT NULL,
  -- NULL: free (the poll ended).
  leased_until timestamptz
);
