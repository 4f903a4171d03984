-- term_share read `current_schema()` when refreshed. Since PostgreSQL 17,
-- REFRESH MATERIALIZED VIEW runs with search_path = pg_catalog, so there (and
-- on the embedded PGlite, which is PostgreSQL 17+) the view matched no table and
-- stayed empty: keyword rarity weighting silently did nothing. The schema is
-- now written into the view when this migration runs.
DROP MATERIALIZED VIEW term_share;

DO $migration$
BEGIN
  EXECUTE format($view$
    CREATE MATERIALIZED VIEW term_share AS
      SELECT s.tablename::text AS tbl, u.lexeme, u.share::float8 AS share
        FROM pg_stats s,
             unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) AS u(lexeme, share)
       WHERE s.schemaname = %1$L
         AND ((s.tablename = 'episode' AND s.attname = 'content_tsv') OR (s.tablename = 'fact' AND s.attname = 'fact_tsv'))
         AND u.lexeme IS NOT NULL
      UNION ALL
      SELECT s.tablename::text, '', (SELECT min(x) / 2 FROM unnest(s.most_common_elem_freqs) x)::float8
        FROM pg_stats s
       WHERE s.schemaname = %1$L
         AND ((s.tablename = 'episode' AND s.attname = 'content_tsv') OR (s.tablename = 'fact' AND s.attname = 'fact_tsv'))
         AND s.most_common_elem_freqs IS NOT NULL
  $view$, current_schema());
END
$migration$;

-- Unique, so it can be refreshed CONCURRENTLY (reads never wait for a refresh).
CREATE UNIQUE INDEX term_share_key ON term_share (tbl, lexeme);
