-- When a tender was first scored on arrival (its `tenders.score` job): the daily digest's "new GO
-- tenders" count from here, not from the tender's arrival (`tenders.created_at`), because scoring
-- follows arrival by seconds to minutes. A tender that arrived before a digest pass and was scored
-- after it was left out of that digest (no score yet) and of the next (it arrived before that
-- window): never reported. A narrow table of its own, written in the scores' transaction: stamping
-- the (wide) tender rows cost the scoring bench ~0.5 s of ~21 s. Tenders scored before this
-- migration have no row; the digest reads their `created_at`, as before.
CREATE TABLE tender_first_scores (
  tender_id  uuid PRIMARY KEY REFERENCES tenders (id) ON DELETE CASCADE,
  scored_at  timestamptz NOT NULL
);
