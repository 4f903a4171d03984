-- How common each lexeme is in the searchable text columns, copied out of the
-- statistics ANALYZE keeps (pg_stats.most_common_elems). The keyword signal
-- weighs query terms by rarity; reading the statistics arrays on every query
-- (detoasting and scanning ~1,000 elements per column) cost more than the rest
-- of the query, an indexed lookup here costs microseconds. Refreshed by the
-- search-stats schedule (and after bulk loads); the row with an empty lexeme
-- holds the share assumed for lexemes rarer than every listed one.
CREATE MATERIALIZED VIEW term_share AS
  SELECT s.tablename::text AS tbl, u.lexeme, u.share::float8 AS share
    FROM pg_stats s,
         unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(lexeme, share)
   WHERE s.schemaname = current_schema()
     AND ((s.tablename = 'episode' AND s.attname = 'content_tsv') OR (s.tablename = 'fact' AND s.attname = 'fact_tsv'))
     AND u.lexeme IS NOT NULL
  UNION ALL
  SELECT s.tablename::text, '', (SELECT min(x) / 2 FROM unnest(s.most_common_elem_freqs) x)::float8
    FROM pg_stats s
   WHERE s.schemaname = current_schema()
     AND ((s.tablename = 'episode' AND s.attname = 'content_tsv') OR (s.tablename = 'fact' AND s.attname = 'fact_tsv'))
     AND s.most_common_elem_freqs IS NOT NULL;

-- Unique, so it can be refreshed CONCURRENTLY (reads never wait for a refresh).
CREATE UNIQUE INDEX term_share_key ON term_share (tbl, lexeme);
