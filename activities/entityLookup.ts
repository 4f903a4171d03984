import type { Pool } from '../core/db/pool.js';
import { toVectorSql } from '../core/db/pool.js';
import { nameKey as canonicalKey } from '../core/domain/canonical.js';
import { baseKeys } from '../core/entities/baseNameMatch.js';
import type { EntityCandidate, ExistingEntity } from '../core/extraction/types.js';

/** An existing entity that may be candidate `idx`, and how it was found. */
export type EntityMatchRow = ExistingEntity & { idx: number; via: 'exact' | 'vector' | 'base' };

const EXACT_PER_CANDIDATE = 5;

/** Name keys, and the surface forms lower-cased: a stored alias (an email address, an event UID) matches as written. */
function lookupKeys(candidate: EntityCandidate): string[] {
  return [...new Set([candidate.name, ...candidate.aliases].flatMap((n) => [canonicalKey(n), n.toLowerCase()]))];
}

/**
 * Prose: for each candidate, in one round trip, exact name/alias matches, the nearest names by embedding, and
 * (`base`) entities of the same type whose name or alias may share its base name once suffixes are set aside:
 * the base name is a whole-word prefix of name_key, so a byte-order range on the entity_live_name_key_bytes
 * index finds them; decideByBaseName applies the suffix rule to what it returns.
 * Each candidate's vector is typed `vector` where the JSON is unpacked, so it is parsed once: cast in the ORDER BY
 * (`c.vec::vector`), its 384 numbers were parsed again for every entity of the scope that the sort compared: 45 ms
 * for three names against 600 entities on a server, 156 ms on the embedded PGlite, where it held the one session for
 * most of extraction's time (6 and 20 ms typed).
 */
export async function lookupProseEntities(
  pool: Pool,
  scope: { namespace: string; scopeUser: string },
  entities: EntityCandidate[],
  vectors: number[][],
): Promise<EntityMatchRow[]> {
  const { rows } = await pool.query<EntityMatchRow>(
    `SELECT c.idx, m.id, m.name, m.type, m.aliases, m.similarity, m.via
       FROM jsonb_to_recordset($3::jsonb) AS c(idx int, name_key text, keys text[], vec vector, type text, bases text[])
      CROSS JOIN LATERAL (
        (SELECT id, name, type, aliases, 1.0::float8 AS similarity, 'exact' AS via FROM entity
          WHERE namespace = $1 AND scope_user = $2 AND merged_into IS NULL AND forgotten_at IS NULL
            AND (name_key = ANY(c.keys) OR EXISTS (SELECT 1 FROM unnest(aliases) a WHERE lower(a) = ANY(c.keys)))
          -- The candidate's own name first: many entities may share a first name as an alias.
          ORDER BY name_key = c.name_key DESC, name_key = ANY(c.keys) DESC
          LIMIT ${EXACT_PER_CANDIDATE})
        UNION ALL
        (SELECT id, name, type, aliases, 1 - (name_embedding <=> c.vec) AS similarity, 'vector' AS via FROM entity
          WHERE namespace = $1 AND scope_user = $2 AND merged_into IS NULL AND forgotten_at IS NULL
          ORDER BY name_embedding <=> c.vec LIMIT 3)
        UNION ALL
        (SELECT n.id, n.name, n.type, n.aliases, 1.0::float8 AS similarity, 'base' AS via FROM unnest(c.bases) AS b(key)
          CROSS JOIN LATERAL (
            SELECT id, name, type, aliases FROM entity
             WHERE namespace = $1 AND scope_user = $2 AND type = c.type AND merged_into IS NULL AND forgotten_at IS NULL
               AND (name_key COLLATE "C") >= b.key AND (name_key COLLATE "C") < b.key || '!'
             LIMIT 10) AS n)
        UNION ALL
        (SELECT id, name, type, aliases, 1.0::float8 AS similarity, 'base' AS via FROM entity
          WHERE namespace = $1 AND scope_user = $2 AND type = c.type AND merged_into IS NULL AND forgotten_at IS NULL
            AND EXISTS (SELECT 1 FROM unnest(aliases) a, unnest(c.bases) b WHERE starts_with(lower(a), b))
          LIMIT 10)
      ) AS m`,
    [
      scope.namespace,
      scope.scopeUser,
      JSON.stringify(
        entities.map((candidate, idx) => ({
          idx,
          name_key: canonicalKey(candidate.name),
          keys: lookupKeys(candidate),
          vec: toVectorSql(vectors[idx]),
          type: candidate.type,
          bases: baseKeys([candidate.name, ...candidate.aliases]),
        })),
      ),
    ],
  );
  return rows;
}

/**
 * Structured sources (a batch of thousands of names) resolve exactly, by name key or by a stored alias as
 * written (an email address, an event UID). One set-based statement for the whole batch, matched back to
 * candidates here: asked per candidate, a plan built on stale statistics (no autovacuum on PGlite, a table
 * that grew by thousands of rows since its last ANALYZE) scanned the scope's entities once per candidate,
 * 100 ms each at 15,000 entities. Set-based, the worst plan reads the scope once (40 ms for 2,000 names there).
 */
export async function lookupStructuredEntities(
  pool: Pool,
  scope: { namespace: string; scopeUser: string },
  entities: EntityCandidate[],
): Promise<EntityMatchRow[]> {
  const keys = entities.map(lookupKeys);
  const surfaces = entities.map((c) => [...new Set([c.name, ...c.aliases].flatMap((n) => [n, n.toLowerCase()]))]);
  const { rows } = await pool.query<ExistingEntity & { name_key: string }>(
    `SELECT id, name, type, aliases, name_key FROM entity
      WHERE namespace = $1 AND scope_user = $2 AND merged_into IS NULL AND forgotten_at IS NULL AND name_key = ANY($3::text[])
     UNION
     SELECT id, name, type, aliases, name_key FROM entity
      WHERE namespace = $1 AND scope_user = $2 AND merged_into IS NULL AND forgotten_at IS NULL
        AND EXISTS (SELECT 1 FROM unnest(aliases) a WHERE a = ANY($4::text[]))
     ORDER BY id`,
    [scope.namespace, scope.scopeUser, [...new Set(keys.flat())], [...new Set(surfaces.flat())]],
  );
  const byKey = new Map<string, typeof rows>();
  const byAlias = new Map<string, typeof rows>();
  const index = (map: Map<string, typeof rows>, key: string, row: (typeof rows)[number]) => map.set(key, [...(map.get(key) ?? []), row]);
  for (const row of rows) {
    index(byKey, row.name_key, row);
    for (const alias of row.aliases) index(byAlias, alias, row);
  }
  const out: EntityMatchRow[] = [];
  entities.forEach((_, idx) => {
    const matched = new Map<string, (typeof rows)[number]>();
    for (const key of keys[idx]) for (const row of byKey.get(key) ?? []) matched.set(row.id, row);
    for (const surface of surfaces[idx]) for (const row of byAlias.get(surface) ?? []) matched.set(row.id, row);
    for (const row of [...matched.values()].slice(0, EXACT_PER_CANDIDATE * 2)) {
      out.push({ idx, id: row.id, name: row.name, type: row.type, aliases: row.aliases, similarity: 1, via: 'exact' });
    }
  });
  return out;
}
