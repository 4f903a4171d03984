-- Namespace-wide name lookups (the read path's entities named in a question
-- without a user id): the existing name indexes lead with scope_user (and
-- type), so `namespace = $1 AND name_key = ANY($2)` walked every entity of the
-- namespace once per name; at 4,400 entities that was 1.7 of a context
-- request's 12 ms of PostgreSQL time (0.5 ms with this index).
CREATE INDEX entity_namespace_name_key_idx ON entity (namespace, name_key);
