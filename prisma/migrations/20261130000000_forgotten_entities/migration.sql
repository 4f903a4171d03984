-- A namespace's forgotten entities, for reads that hide facts on them: the
-- fact list checks each fact's ends against this (usually empty) set instead
-- of joining every entity of the namespace (core/retrieval/facts.ts).
CREATE INDEX entity_forgotten_idx ON entity (namespace) WHERE forgotten_at IS NOT NULL;
