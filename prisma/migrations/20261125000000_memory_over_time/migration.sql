-- Memory over time (DESIGN §3–§4): working-memory sessions and their turns and
-- summaries, persistent tasks and their bursts, dream runs, the review
-- workflow's decisions, remembered merge rejections and persisted decay.
-- New tables carry `namespace` in their keys (DESIGN §2, sharding by namespace).

-- Working memory: one row per session of a task id; a turn after expiry opens a
-- new row for the same task id, so at most one row per (namespace, task_id) is active.
CREATE TABLE work_session (
  id                  UUID PRIMARY KEY,
  namespace           TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  task_id             TEXT NOT NULL,
  status              TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  user_id             TEXT,
  agent_id            TEXT,
  -- Per-session inactivity TTL; NULL means SESSION_TTL.
  ttl_seconds         INTEGER CHECK (ttl_seconds IS NULL OR ttl_seconds > 0),
  -- Set when the session belongs to a persistent task: no expiry while the task is active.
  persistent_task_id  UUID,
  summary             TEXT,
  -- Turns with turn_index < summarized_through are folded into `summary`.
  summarized_through  INTEGER NOT NULL DEFAULT 0,
  turn_count          INTEGER NOT NULL DEFAULT 0,
  last_activity_at    TIMESTAMPTZ NOT NULL,
  expires_at          TIMESTAMPTZ,
  archived_at         TIMESTAMPTZ,
  workflow_id         TEXT NOT NULL,
  created_at          TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX work_session_active_idx ON work_session (namespace, task_id) WHERE status = 'active';
CREATE INDEX work_session_task_idx ON work_session (namespace, task_id, created_at DESC);
CREATE INDEX work_session_expiry_idx ON work_session (expires_at) WHERE status = 'active';
CREATE INDEX work_session_user_idx ON work_session (namespace, user_id);

CREATE TABLE session_turn (
  session_id   UUID NOT NULL REFERENCES work_session(id) ON DELETE CASCADE,
  turn_index   INTEGER NOT NULL,
  namespace    TEXT NOT NULL,
  role         TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
  content      TEXT NOT NULL,
  tool_result  JSONB,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (session_id, turn_index)
);

-- Every summary written (running ones and the final one on archive); originals stay in session_turn.
CREATE TABLE session_summary (
  id            UUID PRIMARY KEY,
  session_id    UUID NOT NULL REFERENCES work_session(id) ON DELETE CASCADE,
  namespace     TEXT NOT NULL,
  through_turn  INTEGER NOT NULL,
  final         BOOLEAN NOT NULL DEFAULT false,
  content       TEXT NOT NULL,
  episode_id    UUID,
  created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (session_id, through_turn, final)
);

-- Long-running agent tasks (the persistentTask workflow keeps the live state; this is the durable copy).
CREATE TABLE persistent_task (
  id                      UUID PRIMARY KEY,
  namespace               TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  intent                  TEXT NOT NULL,
  schedule                JSONB NOT NULL,
  status                  TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'cancelled', 'completed')),
  progress                JSONB NOT NULL DEFAULT '{}'::jsonb,
  error_budget            INTEGER NOT NULL CHECK (error_budget >= 0),
  error_budget_remaining  INTEGER NOT NULL,
  webhook_url             TEXT,
  user_id                 TEXT,
  agent_id                TEXT,
  workflow_id             TEXT NOT NULL,
  -- The burst now running or last run (0 before the first); memory writes with task_id count against it.
  current_burst           INTEGER NOT NULL DEFAULT 0,
  next_burst_at           TIMESTAMPTZ,
  created_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at             TIMESTAMPTZ
);
CREATE INDEX persistent_task_ns_idx ON persistent_task (namespace, status, created_at DESC);

CREATE TABLE task_burst (
  task_id       UUID NOT NULL REFERENCES persistent_task(id) ON DELETE CASCADE,
  burst_index   INTEGER NOT NULL,
  namespace     TEXT NOT NULL,
  scheduled_at  TIMESTAMPTZ,
  started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at   TIMESTAMPTZ,
  outcome       TEXT CHECK (outcome IN ('ok', 'failed', 'skipped')),
  http_status   INTEGER,
  error         TEXT,
  response      JSONB,
  -- Memories written with this task's id during this burst (write limit).
  writes        INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (task_id, burst_index)
);

ALTER TABLE episode ADD COLUMN task_id UUID;

-- One row per dream run: on schedule or on demand; `report` holds counts and durations per pass.
CREATE TABLE dream_run (
  id            UUID PRIMARY KEY,
  -- NULL: every namespace.
  namespace     TEXT REFERENCES namespace(id) ON DELETE CASCADE,
  status        TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'completed', 'failed')),
  workflow_id   TEXT NOT NULL,
  requested_by  TEXT,
  started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at   TIMESTAMPTZ,
  report        JSONB NOT NULL DEFAULT '{}'::jsonb,
  error         TEXT
);
CREATE INDEX dream_run_ns_idx ON dream_run (namespace, started_at DESC);

-- Decay persisted by the dream (reads still compute it from confidence and last_confirmed_at).
ALTER TABLE fact ADD COLUMN effective_confidence REAL;
ALTER TABLE fact ADD COLUMN decayed_at TIMESTAMPTZ;

-- The review workflow's decision on an item.
ALTER TABLE review_item DROP CONSTRAINT review_item_kind_check;
ALTER TABLE review_item ADD CONSTRAINT review_item_kind_check
  CHECK (kind IN ('conflict', 'merge', 'rejected_write', 'budget', 'task_budget'));
ALTER TABLE review_item DROP CONSTRAINT review_item_status_check;
ALTER TABLE review_item ADD CONSTRAINT review_item_status_check
  CHECK (status IN ('open', 'decided', 'approved', 'rejected', 'resolved', 'escalated'));
ALTER TABLE review_item ADD COLUMN decision TEXT CHECK (decision IS NULL OR decision IN ('approve', 'reject', 'resolve'));
ALTER TABLE review_item ADD COLUMN decided_at TIMESTAMPTZ;
ALTER TABLE review_item ADD COLUMN decided_by TEXT;
ALTER TABLE review_item ADD COLUMN escalated_at TIMESTAMPTZ;
ALTER TABLE review_item ADD COLUMN workflow_id TEXT;
ALTER TABLE review_item ADD COLUMN updated_at TIMESTAMPTZ NOT NULL DEFAULT now();
CREATE INDEX review_item_kind_idx ON review_item (namespace, kind, status, created_at DESC);

-- A rejected merge is remembered so the same pair is not proposed again (entity_a < entity_b).
CREATE TABLE merge_rejection (
  namespace   TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  entity_a    UUID NOT NULL,
  entity_b    UUID NOT NULL,
  review_id   UUID,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (namespace, entity_a, entity_b),
  CHECK (entity_a < entity_b)
);
