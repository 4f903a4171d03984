-- Idempotency keys for POST /v1/memories and /v1/memories/batch (issue 18):
-- a retry carrying the same `Idempotency-Key` and the same body within 24 h
-- answers the original result; another body answers 422.
-- One row per (API key, Idempotency-Key): the first request claims it (status
-- NULL while its write runs), then records its answer. A claim whose write
-- failed is deleted, so the client may retry with the same key.
-- `key_id` is the principal's key id (an api_key id, or `env:MNEMO_API_KEY`):
-- two keys never share idempotency keys, even for the same namespace.
CREATE TABLE IF NOT EXISTS idempotency_key (
  key_id          TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  -- SHA-256 (hex) of the route and the request body in canonical JSON.
  request_hash    TEXT NOT NULL CHECK (request_hash ~ '^[0-9a-f]{64}$'),
  -- The original answer; NULL while the first request is still writing.
  response_status INTEGER,
  response_body   JSONB,
  created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, idempotency_key)
);
-- Expired keys (older than 24 h) are purged by created_at.
CREATE INDEX IF NOT EXISTS idempotency_key_created_idx ON idempotency_key (created_at);
