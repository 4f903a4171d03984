-- A context block, an entity's memory and a profile rank the scope's facts by
-- effective confidence and keep the first few (core/retrieval/facts.ts). The
-- ranking reads the confidence, decay class and last confirmation of every
-- fact of the user, and the filters their validity and ends; those were only
-- in the heap, where each fact's row is about 1.5 kB (its embedding is
-- inline): one page read per fact, 673 for a user at a million episodes.
-- This index carries every column the ranking and the filters read, for the
-- facts a read shows by default (live, not stale, not expired), so the cut is
-- an index-only scan and only the kept facts are read from the table.
CREATE INDEX fact_scope_rank_idx ON fact (namespace, scope_user)
  INCLUDE (subject_id, object_id, confidence, decay_class, last_confirmed_at, importance, valid_from, invalid_at, id)
  WHERE forgotten_at IS NULL AND NOT stale AND expired_at IS NULL;
