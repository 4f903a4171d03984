-- Write-time resolution by base name (issue 15): "Acme" finds "Acme Corp" and
-- "Acme Corp" finds "Acme". A base name (the name without legal-form and
-- organizational suffixes, core/entities/nameKey.ts) is always a whole-word
-- prefix of name_key, so one range scan over name_key in byte order finds every
-- live entity of the same namespace, user scope and type that could share it;
-- the suffix rule itself stays in TypeScript and decides among what the range
-- returns. No stored column: entities written by any path (merges, erasure,
-- fixtures) are covered without a second place to keep in step.
CREATE INDEX entity_live_name_key_bytes ON entity (namespace, scope_user, type, (name_key COLLATE "C"))
  WHERE merged_into IS NULL AND forgotten_at IS NULL;
