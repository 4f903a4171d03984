-- The temporal signal counts a window's live facts (at most 5,001) before
-- scoring them (core/retrieval/signals/temporal.ts), from this index alone.
-- A context block leaves out facts faded below DECAY_FLOOR, and that test
-- reads confidence, decay_class and last_confirmed_at, which were only in the
-- heap: each counted fact became a heap fetch. A namespace-wide "painting
-- plans in September" at 100,000 episodes counted 4,529 facts through 19,950
-- index entries in 34 ms, half of its signal statement. With the three
-- columns carried here the count is an index-only scan again (6 ms). The id
-- rides along so that, namespace-wide, the exact scan of a window under the
-- bound reads just the counted facts, by id, instead of every fact begun
-- before the window's end.
--
-- Built under a new name first: the migration is one transaction, and DROP
-- INDEX locks out readers of the table until it commits, so it comes last.
CREATE INDEX fact_live_validity_covering_idx ON fact (namespace, valid_from)
  INCLUDE (invalid_at, expired_at, scope_user, confidence, decay_class, last_confirmed_at, id)
  WHERE forgotten_at IS NULL AND NOT stale;
DROP INDEX fact_live_validity_idx;
ALTER INDEX fact_live_validity_covering_idx RENAME TO fact_live_validity_idx;
