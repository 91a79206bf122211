-- CPV affinity learned from awards (issue 21): how much more often than chance the same suppliers
-- win in two CPV classes (src/domain/scoring/CpvAffinity.ts). Recomputed by the scorer from every
-- award notice with winners' fiscal codes whenever award notices arrive
-- (infra/scoring/CpvAffinityTable.ts); the cpv factor and the candidate rule read it.
--
-- One row per direction: (cpv_class → other_class) is the affinity from a class a company has to
-- the class of a tender, with the counts its reason names ("14 of 52": common_suppliers of
-- class_suppliers). Both directions share their strength (the measure is symmetric).
CREATE TABLE cpv_class_affinity (
  cpv_class        text NOT NULL,
  other_class      text NOT NULL,
  common_suppliers integer NOT NULL,
  class_suppliers  integer NOT NULL,
  other_suppliers  integer NOT NULL,
  strength         real NOT NULL CHECK (strength > 0 AND strength <= 1),
  PRIMARY KEY (cpv_class, other_class)
);

-- The table's snapshot: a scorer reloads its copy when `revision` moves, and recomputes the table
-- when `model_version` is not its own (the measure's constants belong to the model version; NULL:
-- never computed, as right after this migration).
CREATE TABLE cpv_affinity_state (
  singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  revision      bigint NOT NULL DEFAULT 0,
  model_version text,
  suppliers     integer NOT NULL DEFAULT 0,
  computed_at   timestamptz
);
INSERT INTO cpv_affinity_state DEFAULT VALUES;

-- Model tsm-1.4.0 (the cpv factor and the candidate rule use the affinity) changes stored scores:
-- when scores exist, the worker backfills them as for 0013 and 0021; its first scoring computes the
-- table (model_version NULL).
INSERT INTO jobs (kind, payload)
SELECT 'scores.backfill', '{}'::jsonb
WHERE EXISTS (SELECT 1 FROM tender_scores);
