-- A user's postings of each word. Narrowed to a user, the keyword signal
-- reads the rows holding a query word (core/retrieval/signals/keyword.ts);
-- through episode_tsv_idx that meant the word's postings over the whole
-- table, most of them other users', turned into a bitmap and intersected with
-- the user's rows. At a million episodes (300 users) "plan" had 20,750
-- postings and "work" 249,505: 6.6 and 59 ms to find one user's 73 and 844
-- rows. Keyed by user and word, the same lookups read 73 and 844 postings
-- (0.1 ms each).
--
-- The key is the user id, a unit separator (U+001F) and the lexeme: the read
-- path builds the same string (userTermKey). Rows it yields are still checked
-- for the user and the word, so a user id holding that character costs only
-- extra candidates, never a wrong row. Episodes without a user are not indexed.
CREATE FUNCTION episode_user_terms(user_id text, tsv tsvector) RETURNS text[]
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT ARRAY(SELECT user_id || E'\x1f' || lexeme FROM unnest(tsvector_to_array(tsv)) AS lexeme) $$;

-- Every acknowledged write adds to it, as to episode_tsv_idx: the same bounded
-- pending list (migration 20261129000000_gin_without_pending_list).
CREATE INDEX episode_user_terms_idx ON episode USING gin (episode_user_terms(user_id, content_tsv))
  WITH (gin_pending_list_limit = 64) WHERE user_id IS NOT NULL;
