-- Threads (issue 17): agents and the person coordinating in a conversation of
-- their own. A thread names its participants (agent ids, or `user` for the
-- person); its messages carry `seq`, a cursor that only grows, which the SSE
-- stream sends as the event id and a client resumes from (Last-Event-ID).
CREATE TABLE thread (
  id               UUID PRIMARY KEY,
  namespace        TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  title            TEXT NOT NULL CHECK (length(title) BETWEEN 1 AND 500),
  participants     TEXT[] NOT NULL CHECK (cardinality(participants) BETWEEN 1 AND 50),
  -- Who opened it: the API key's actor (`key:<id>`).
  created_by       TEXT NOT NULL,
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  -- The thread's last activity (its creation, then every message): the list's order.
  updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_message_at  TIMESTAMPTZ,
  last_sender      TEXT,
  -- seq of the newest message (0: none yet): where a stream without Last-Event-ID starts.
  last_seq         BIGINT NOT NULL DEFAULT 0,
  message_count    INTEGER NOT NULL DEFAULT 0
);
-- "Threads of agent P" (`participants @> ARRAY[P]`).
CREATE INDEX thread_participants_idx ON thread USING GIN (participants);
-- A namespace's threads, most recent activity first (keyset pages by (updated_at, id)).
CREATE INDEX thread_namespace_activity_idx ON thread (namespace, updated_at DESC, id DESC);
-- Threads by when they last heard a message.
CREATE INDEX thread_namespace_last_message_idx ON thread (namespace, last_message_at DESC);

CREATE TABLE thread_message (
  id          UUID PRIMARY KEY,
  thread_id   UUID NOT NULL REFERENCES thread(id) ON DELETE CASCADE,
  namespace   TEXT NOT NULL REFERENCES namespace(id) ON DELETE CASCADE,
  -- Global and increasing. Posting locks the thread row before taking a value,
  -- so within one thread seq order is also commit order: a reader that has
  -- seen seq N of a thread never later finds a smaller one appear.
  seq         BIGINT GENERATED ALWAYS AS IDENTITY,
  sender      TEXT NOT NULL,
  content     TEXT NOT NULL,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
-- A thread's messages in order, and "messages of a thread after seq N" (pages, streams, resume).
CREATE UNIQUE INDEX thread_message_thread_seq_idx ON thread_message (thread_id, seq);
