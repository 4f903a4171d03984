-- Embeddings stay in the row. PostgreSQL moves the largest values of a row
-- over about 2 kB out to its TOAST table, and an episode's or fact's
-- 384-dimension embedding (1,544 bytes) is that value once the text beside it
-- passes a few hundred characters: after REALTALK's ingest 53 % of the
-- episodes (avg. row 2,126 bytes) and 19 % of the facts had theirs out of
-- line, and every read that scores rows by distance (the vector signal's exact
-- scans, the graph's linked episodes, the temporal window) fetched each from
-- the TOAST table through its index. With rows kept whole up to 4 kB, longer
-- texts are compressed and moved out first; REALTALK's searches cost
-- PostgreSQL 8.5-8.7 ms of CPU before and 7.3-7.8 ms after. Rows written
-- before this are re-formed when next updated (extraction, re-embedding).
ALTER TABLE episode SET (toast_tuple_target = 4080);
ALTER TABLE fact SET (toast_tuple_target = 4080);
