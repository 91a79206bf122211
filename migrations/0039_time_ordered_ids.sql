-- Time-ordered ids (UUID version 7, RFC 9562) for the rows that arrive in bulk: tenders, and the
-- alerts, match events and webhook deliveries their scoring raises (issue 23: scoring throughput).
--
-- A random (version 4) id puts every new tender at a random place in each index that leads with a
-- tender id (the scores' primary key, the alerts' and events' tender indexes), so a batch of 250 new
-- tenders touched pages all over them, each read, dirtied and written again; a version 7 id begins
-- with the milliseconds since 1970, so new rows go to the right-hand edge of those indexes, where
-- the pages are already in memory. The rest of the id is random (74 bits): ids stay unguessable
-- and unique across processes. Existing ids keep their values; both versions are UUIDs.
--
-- PostgreSQL 15 has no uuidv7() (18 has): the first 48 bits of a random UUID are replaced by the
-- millisecond timestamp (big-endian) and its version nibble 4 (0100) becomes 7 (0111) by setting
-- bits 52 and 53 (PostgreSQL numbers bits from the least significant of each byte; byte 6 holds
-- the version in its high nibble). The variant bits are the random UUID's.
CREATE FUNCTION uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
  SELECT encode(
    set_bit(set_bit(
      overlay(uuid_send(gen_random_uuid())
              PLACING substring(int8send((extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
              FROM 1 FOR 6),
      52, 1), 53, 1),
    'hex')::uuid
$$;

ALTER TABLE tenders ALTER COLUMN id SET DEFAULT uuid_v7();
ALTER TABLE alerts ALTER COLUMN id SET DEFAULT uuid_v7();
ALTER TABLE match_events ALTER COLUMN id SET DEFAULT uuid_v7();
ALTER TABLE webhook_deliveries ALTER COLUMN id SET DEFAULT uuid_v7();
