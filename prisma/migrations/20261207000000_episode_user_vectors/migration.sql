-- A search narrowed to a user ranks every episode of the user by its
-- distance to the question (core/retrieval/signals/scopeEpisodes.ts). Read
-- from the table, each of them was a page of its own: a user's rows lie among
-- everyone's, and a row with its inline embedding is about 2 kB. At a million
-- episodes that was 3,333 page reads per search for one user. This index
-- carries what the ranking reads (the id, the embedding, whether there are
-- passages, and when it happened, for as_of), in user order, so the ranking
-- is an index-only scan over a few hundred adjacent pages; the graph signal
-- reads the table only for the episodes the question's entities link to.
-- Episodes without a user are never read this way and are not indexed.
CREATE INDEX episode_user_vectors_idx ON episode (namespace, user_id)
  INCLUDE (id, has_passages, occurred_at, embedding)
  WHERE forgotten_at IS NULL AND user_id IS NOT NULL;
