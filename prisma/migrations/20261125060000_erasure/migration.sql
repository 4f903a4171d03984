-- Erasure of a user (issue 16): one row per (namespace, user) erased, the
-- progress of its `eraseUser` workflow (id `erase:<namespace>:<user_id>`).
-- The user id itself is never stored: `user_hash` is its SHA-256 (hex), so the
-- row that proves the erasure holds nothing about the person (nor does its id:
-- the workflow id names the user, so only its hash is kept).
CREATE TABLE erasure (
  namespace       TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  user_hash       TEXT NOT NULL CHECK (user_hash ~ '^[0-9a-f]{64}$'),
  status          TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
  -- The step the workflow is in (core/governance/contracts.ts ERASURE_STEPS).
  step            TEXT,
  -- Rows removed (or detached from the user) so far, per kind: {"episodes": 12, "facts": 30, ...}.
  counts          JSONB NOT NULL DEFAULT '{}'::jsonb,
  batches         INTEGER NOT NULL DEFAULT 0,
  requested_by    TEXT,
  -- SHA-256 of the workflow id (`erase:<namespace>:<user_id>`): GET /v1/erasures/:id finds the row by it.
  workflow_id_hash TEXT NOT NULL,
  started_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at     TIMESTAMPTZ,
  updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  error           TEXT,
  PRIMARY KEY (namespace, user_hash)
);
CREATE INDEX erasure_workflow_idx ON erasure (workflow_id_hash);

-- The user's facts and entities are found through the existing (namespace, scope_user, …)
-- indexes; no new index on the fact table (every index costs each extraction's insert).
