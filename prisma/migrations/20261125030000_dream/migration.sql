-- The dream's decay pass rewrites every believed fact each night (effective_confidence,
-- decayed_at, stale). None of those columns is indexed, so PostgreSQL can update the
-- rows in place (HOT) without touching any index (the HNSW index above all, where an
-- insert costs milliseconds) as long as each page keeps room for the new row versions.
-- A fact page filled to half leaves that room. Applies to pages written from now on;
-- a table loaded before this migration gets there after its first dream run.
ALTER TABLE fact SET (fillfactor = 50);
