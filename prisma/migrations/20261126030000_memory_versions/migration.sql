-- Updating a memory (issue 20): PATCH /v1/memories/:id keeps every replaced
-- version of an episode here; the episode row always holds the current one.
-- Version numbers start at 1 (the content first written); the current version
-- is 1 + the highest version kept here.
CREATE TABLE episode_version (
  episode_id          UUID NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
  version             INTEGER NOT NULL CHECK (version >= 1),
  content             TEXT NOT NULL,
  metadata            JSONB NOT NULL DEFAULT '{}'::jsonb,
  -- When this version became current (the episode's recorded_at for version 1).
  recorded_at         TIMESTAMPTZ NOT NULL,
  -- The extraction run of this version (`episode:<id>` for version 1, `episode:<id>:v<n>` after).
  workflow_id         TEXT,
  replaced_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  replaced_by_actor   TEXT NOT NULL,
  replaced_by_request TEXT,
  -- Facts this version's content supported (fact_episode created/confirmed/refined) when it was replaced.
  supported_fact_ids  UUID[] NOT NULL DEFAULT '{}',
  -- Set when the replacing content's extraction committed and the facts only this content
  -- supported were expired (at once for a metadata-only change or content not extracted).
  settled_at          TIMESTAMPTZ,
  facts_expired       INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (episode_id, version)
);
-- The commit stage looks for the versions its run settles.
CREATE INDEX episode_version_unsettled_idx ON episode_version (episode_id) WHERE settled_at IS NULL;
