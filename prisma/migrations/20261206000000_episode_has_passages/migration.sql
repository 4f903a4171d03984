-- Whether an episode has passage vectors (core/memories/episodeVectors.ts
-- keeps it in the statement that stores them). A narrow search scores every
-- episode of its scope by the nearer of its own vector and its closest
-- passage's, and most episodes (short turns) have none: probing
-- episode_passage for each cost more than the distances themselves (3,334
-- episodes of one user at a million: 5.2 ms with the probe, 2.5 ms without).
-- Adding a column with a constant default rewrites nothing.
ALTER TABLE episode ADD COLUMN has_passages boolean NOT NULL DEFAULT false;
UPDATE episode e SET has_passages = true WHERE EXISTS (SELECT 1 FROM episode_passage ps WHERE ps.episode_id = e.id);
