-- When a tender was first scored on arrival (its `tenders.score` job): the daily digest's "new GO
-- tenders" count from here, not from the tender's arrival (`created_at`), because scoring follows
-- arrival by seconds to minutes. A tender that arrived before a digest pass and was scored after it
-- was left out of that digest (no score yet) and of the next (it arrived before that window): never
-- reported. NULL for tenders scored before this column existed, which the digest reads by
-- `created_at` as before.
ALTER TABLE tenders ADD COLUMN first_scored_at timestamptz;
