-- Every GIN index on the read path without a pending list (fastupdate = off).
-- With PostgreSQL's default, new entries go to an unsorted pending list that
-- every search of the index reads in full, until VACUUM or an insert that
-- finds it past gin_pending_list_limit (4 MB) merges it. After REALTALK's
-- ingest through the API (8,944 turns, autovacuum not yet round) the
-- episodes' list held 342 pages and the entities' name trigrams 46: a search
-- took 41.0 ms (PostgreSQL 38.3 ms of CPU) and a context block 26.8 ms; with
-- the lists merged, 14.4 and 3.7 ms. Inserts now pay for their own entries,
-- a few each, instead of one unlucky insert merging megabytes of others'.
ALTER INDEX episode_tsv_idx SET (gin_pending_list_limit = 64);
ALTER INDEX fact_tsv_idx SET (gin_pending_list_limit = 64);
ALTER INDEX entity_name_trgm_idx SET (fastupdate = off);
ALTER INDEX entity_aliases_idx SET (fastupdate = off);
ALTER INDEX thread_participants_idx SET (fastupdate = off);
-- Turning it off does not merge what the lists already hold.
SELECT gin_clean_pending_list(i::regclass)
FROM unnest(ARRAY['episode_tsv_idx', 'fact_tsv_idx', 'entity_name_trgm_idx', 'entity_aliases_idx', 'thread_participants_idx']) AS i;
