-- Conversation re-ranking looks up the turns just before and after a search candidate
-- in the same conversation (core/retrieval/conversation.ts): one index probe each.
CREATE INDEX episode_conversation_idx ON episode (namespace, (coalesce(user_id, '')), occurred_at);
