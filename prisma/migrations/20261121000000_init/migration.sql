-- Mnemo initial schema: namespaces, episodes, the bi-temporal graph, provenance,
-- stage runs, review items, audit log and API keys.
CREATE EXTENSION IF NOT EXISTS vector;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE namespace (
  id          TEXT PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$'),
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE api_key (
  id           UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  key_hash     TEXT NOT NULL UNIQUE,
  -- NULL namespace: valid for every namespace (admin keys).
  namespace    TEXT REFERENCES namespace(id) ON DELETE CASCADE,
  role         TEXT NOT NULL CHECK (role IN ('agent', 'operator', 'admin')),
  label        TEXT,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  revoked_at   TIMESTAMPTZ
);

CREATE TABLE episode (
  id                UUID PRIMARY KEY,
  namespace         TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  user_id           TEXT,
  agent_id          TEXT,
  run_id            TEXT,
  speaker           TEXT,
  content           TEXT NOT NULL,
  source            TEXT,
  metadata          JSONB NOT NULL DEFAULT '{}'::jsonb,
  occurred_at       TIMESTAMPTZ NOT NULL,
  recorded_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  t_valid_override  TIMESTAMPTZ,
  skip_extraction   BOOLEAN NOT NULL DEFAULT false,
  status            TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'extracting', 'extracted', 'failed', 'skipped')),
  workflow_id       TEXT NOT NULL,
  workflow_run_id   TEXT,
  extraction_count  INTEGER NOT NULL DEFAULT 0,
  error             TEXT,
  extracted_at      TIMESTAMPTZ,
  content_tsv       TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', content)) STORED,
  embedding         vector(384),
  embedding_model   TEXT,
  forgotten_at      TIMESTAMPTZ,
  updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX episode_scope_idx ON episode (namespace, user_id, recorded_at DESC, id DESC);
CREATE INDEX episode_ns_recorded_idx ON episode (namespace, recorded_at DESC, id DESC);
CREATE INDEX episode_agent_run_idx ON episode (namespace, agent_id, run_id);
CREATE INDEX episode_status_idx ON episode (status, recorded_at) WHERE status IN ('pending', 'extracting', 'failed');
CREATE INDEX episode_occurred_idx ON episode (namespace, occurred_at);
CREATE INDEX episode_tsv_idx ON episode USING GIN (content_tsv);
CREATE INDEX episode_embedding_idx ON episode USING hnsw (embedding vector_cosine_ops);

CREATE TABLE entity (
  id                UUID PRIMARY KEY,
  namespace         TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  -- The user the entity was learnt for ('' when the episode named none); reads filter on it.
  scope_user        TEXT NOT NULL DEFAULT '',
  type              TEXT NOT NULL CHECK (type IN ('person', 'organization', 'project', 'decision', 'event',
                                                   'concept', 'place', 'product', 'other')),
  name              TEXT NOT NULL,
  name_key          TEXT NOT NULL,
  aliases           TEXT[] NOT NULL DEFAULT '{}',
  summary           TEXT,
  properties        JSONB NOT NULL DEFAULT '{}'::jsonb,
  name_embedding    vector(384),
  embedding_model   TEXT,
  sensitivity       TEXT NOT NULL DEFAULT 'internal'
                    CHECK (sensitivity IN ('public', 'internal', 'confidential', 'restricted')),
  merged_into       UUID REFERENCES entity(id) ON DELETE SET NULL,
  first_seen_at     TIMESTAMPTZ NOT NULL,
  last_seen_at      TIMESTAMPTZ NOT NULL,
  created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  forgotten_at      TIMESTAMPTZ
);
-- One live entity per name and type within a scope: concurrent commits converge on it.
CREATE UNIQUE INDEX entity_live_name_key ON entity (namespace, scope_user, type, name_key)
  WHERE merged_into IS NULL AND forgotten_at IS NULL;
CREATE INDEX entity_scope_name_idx ON entity (namespace, scope_user, name_key);
CREATE INDEX entity_aliases_idx ON entity USING GIN (aliases);
CREATE INDEX entity_name_trgm_idx ON entity USING GIN (name gin_trgm_ops);
CREATE INDEX entity_name_embedding_idx ON entity USING hnsw (name_embedding vector_cosine_ops);

CREATE TABLE fact (
  id                 UUID PRIMARY KEY,
  namespace          TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  scope_user         TEXT NOT NULL DEFAULT '',
  subject_id         UUID NOT NULL REFERENCES entity(id) ON DELETE CASCADE,
  predicate          TEXT NOT NULL,
  predicate_raw      TEXT NOT NULL,
  family             TEXT NOT NULL CHECK (family IN ('preferences', 'people', 'places', 'work', 'ownership',
                                                      'health', 'financial', 'events', 'other')),
  object_id          UUID REFERENCES entity(id) ON DELETE CASCADE,
  value              TEXT,
  fact_text          TEXT NOT NULL,
  memory_kind        TEXT NOT NULL CHECK (memory_kind IN ('episode', 'semantic', 'viewpoint')),
  importance         REAL NOT NULL DEFAULT 0.5 CHECK (importance BETWEEN 0 AND 1),
  confidence         REAL NOT NULL DEFAULT 0.7 CHECK (confidence BETWEEN 0 AND 1),
  decay_class        TEXT NOT NULL CHECK (decay_class IN ('permanent', 'slow_decay', 'fast_decay')),
  last_confirmed_at  TIMESTAMPTZ NOT NULL,
  confirmation_count INTEGER NOT NULL DEFAULT 1,
  -- World time: when the fact held.
  valid_from         TIMESTAMPTZ,
  invalid_at         TIMESTAMPTZ,
  -- System time: when Mnemo learnt it and when it stopped believing it.
  recorded_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  expired_at         TIMESTAMPTZ,
  invalidated_by     UUID REFERENCES fact(id) ON DELETE SET NULL,
  source             TEXT NOT NULL,
  sensitivity        TEXT NOT NULL CHECK (sensitivity IN ('public', 'internal', 'confidential', 'restricted')),
  previous_values    JSONB NOT NULL DEFAULT '[]'::jsonb,
  properties         JSONB NOT NULL DEFAULT '{}'::jsonb,
  stale              BOOLEAN NOT NULL DEFAULT false,
  fact_tsv           TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', fact_text)) STORED,
  embedding          vector(384),
  embedding_model    TEXT,
  forgotten_at       TIMESTAMPTZ,
  updated_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  CHECK (object_id IS NOT NULL OR value IS NOT NULL)
);
CREATE INDEX fact_subject_predicate_idx ON fact (namespace, subject_id, predicate);
CREATE INDEX fact_object_idx ON fact (namespace, object_id) WHERE object_id IS NOT NULL;
CREATE INDEX fact_scope_validity_idx ON fact (namespace, scope_user, valid_from, invalid_at);
CREATE INDEX fact_active_idx ON fact (namespace, scope_user, subject_id) WHERE invalid_at IS NULL AND expired_at IS NULL;
CREATE INDEX fact_family_idx ON fact (namespace, scope_user, family);
CREATE INDEX fact_tsv_idx ON fact USING GIN (fact_tsv);
CREATE INDEX fact_embedding_idx ON fact USING hnsw (embedding vector_cosine_ops);

-- Provenance: which episodes support (created, confirmed, refined, invalidated) which fact.
CREATE TABLE fact_episode (
  fact_id     UUID NOT NULL REFERENCES fact(id) ON DELETE CASCADE,
  episode_id  UUID NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
  relation    TEXT NOT NULL CHECK (relation IN ('created', 'confirmed', 'refined', 'invalidated')),
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (fact_id, episode_id, relation)
);
CREATE INDEX fact_episode_episode_idx ON fact_episode (episode_id);

CREATE TABLE entity_episode (
  entity_id   UUID NOT NULL REFERENCES entity(id) ON DELETE CASCADE,
  episode_id  UUID NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
  surface     TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (entity_id, episode_id)
);
CREATE INDEX entity_episode_episode_idx ON entity_episode (episode_id);

CREATE TABLE stage_run (
  id               UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  namespace        TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  episode_id       UUID NOT NULL REFERENCES episode(id) ON DELETE CASCADE,
  workflow_id      TEXT NOT NULL,
  workflow_run_id  TEXT NOT NULL,
  stage            TEXT NOT NULL,
  attempt          INTEGER NOT NULL,
  status           TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  input            JSONB,
  output           JSONB,
  model_calls      INTEGER NOT NULL DEFAULT 0,
  tokens_in        INTEGER NOT NULL DEFAULT 0,
  tokens_out       INTEGER NOT NULL DEFAULT 0,
  started_at       TIMESTAMPTZ NOT NULL,
  finished_at      TIMESTAMPTZ,
  duration_ms      INTEGER,
  error            TEXT,
  UNIQUE (episode_id, workflow_run_id, stage, attempt)
);
CREATE INDEX stage_run_episode_idx ON stage_run (episode_id, started_at);

CREATE TABLE review_item (
  id           UUID PRIMARY KEY DEFAULT gen_random_uuid(),
  namespace    TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  kind         TEXT NOT NULL CHECK (kind IN ('conflict', 'merge', 'rejected_write', 'budget')),
  status       TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'approved', 'rejected', 'resolved', 'escalated')),
  title        TEXT NOT NULL,
  payload      JSONB NOT NULL DEFAULT '{}'::jsonb,
  fact_ids     UUID[] NOT NULL DEFAULT '{}',
  entity_ids   UUID[] NOT NULL DEFAULT '{}',
  episode_id   UUID REFERENCES episode(id) ON DELETE SET NULL,
  -- Makes creation idempotent (e.g. episode id + stage + index).
  dedup_key    TEXT UNIQUE,
  resolution   JSONB,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  resolved_at  TIMESTAMPTZ
);
CREATE INDEX review_item_open_idx ON review_item (namespace, status, created_at);

CREATE TABLE audit_log (
  id           BIGSERIAL PRIMARY KEY,
  namespace    TEXT NOT NULL,
  actor        TEXT NOT NULL,
  action       TEXT NOT NULL,
  target_type  TEXT NOT NULL,
  target_id    TEXT,
  before       JSONB,
  after        JSONB,
  request_id   TEXT,
  workflow_id  TEXT,
  run_id       TEXT,
  episode_id   UUID,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_ns_idx ON audit_log (namespace, created_at DESC);
CREATE INDEX audit_log_target_idx ON audit_log (target_type, target_id);

INSERT INTO namespace (id) VALUES ('default');
