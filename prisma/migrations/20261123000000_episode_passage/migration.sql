-- Sentence-level embeddings of longer episodes (core/ingest/passages.ts): the
-- vector signal scores an episode by its closest passage too. Derived data,
-- written with the episode's own embedding and removed with the episode.
CREATE TABLE episode_passage (
  episode_id  UUID NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
  ordinal     INTEGER NOT NULL,
  namespace   TEXT NOT NULL,
  embedding   vector(384) NOT NULL,
  PRIMARY KEY (episode_id, ordinal)
);
CREATE INDEX episode_passage_embedding_idx ON episode_passage USING hnsw (embedding vector_cosine_ops);
