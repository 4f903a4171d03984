-- GIN indexes with little or no pending list to read. With PostgreSQL's
-- default, new entries go to an unsorted pending list that every search of
-- the index reads in full, until VACUUM or an insert that
-- finds it past gin_pending_list_limit (4 MB) merges it. After REALTALK's
-- ingest through the API (8,944 turns, autovacuum not yet round) the
-- episodes' list held 342 pages and the entities' name trigrams 46: a search
-- took 41.0 ms (PostgreSQL 38.3 ms of CPU) and a context block 26.8 ms; with
-- the lists merged, 14.4 and 3.7 ms. The entity and thread indexes, written
-- by extraction a few entries at a time, keep none (fastupdate = off); the
-- full-text indexes, which every acknowledged write adds to, keep at most
-- 64 kB: without a list, acknowledgement p99 at 500 writes/s rose from
-- 48-79 ms to 75-92 ms (README, "Reads after real writes").
ALTER INDEX episode_tsv_idx SET (gin_pending_list_limit = 64);
ALTER INDEX fact_tsv_idx SET (gin_pending_list_limit = 64);
ALTER INDEX entity_name_trgm_idx SET (fastupdate = off);
ALTER INDEX entity_aliases_idx SET (fastupdate = off);
ALTER INDEX thread_participants_idx SET (fastupdate = off);
-- Turning it off does not merge what the lists already hold.
SELECT gin_clean_pending_list(i::regclass)
FROM unnest(ARRAY['episode_tsv_idx', 'fact_tsv_idx', 'entity_name_trgm_idx', 'entity_aliases_idx', 'thread_participants_idx']) AS i;
