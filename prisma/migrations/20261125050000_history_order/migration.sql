-- History in any order (issue 24): single-valued facts form one chain in world time
-- whatever order their episodes arrive in, and relative dates resolve in the writer's
-- time zone.

-- The writer's time zone of an episode: an IANA name given on the write, or the fixed
-- offset its occurred_at carried ("+02:00"); occurred_at itself is a timestamptz and
-- keeps no offset. NULL: the namespace default, else UTC.
ALTER TABLE episode ADD COLUMN timezone TEXT;

-- A namespace's default time zone for writes that give none (IANA name).
ALTER TABLE namespace ADD COLUMN timezone TEXT;

-- When the namespace's facts and review items stored under the earlier rule (a late,
-- older value was arbitrated by confidence) were re-chained. Existing namespaces start
-- NULL and are re-chained once by the worker; namespaces created from now on were
-- never under the old rule.
ALTER TABLE namespace ADD COLUMN history_rechained_at TIMESTAMPTZ;
ALTER TABLE namespace ALTER COLUMN history_rechained_at SET DEFAULT now();

-- A slot-in moves a stored fact's interval: provenance records which episode did it.
ALTER TABLE fact_episode DROP CONSTRAINT fact_episode_relation_check;
ALTER TABLE fact_episode ADD CONSTRAINT fact_episode_relation_check
  CHECK (relation IN ('created', 'confirmed', 'refined', 'invalidated', 'rechained'));
