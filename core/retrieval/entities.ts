import type { Queryable } from '../db/pool.js';
import { entityFilter, type ReadScope } from './scope.js';
import { SqlParams } from './sql.js';

export interface EntityView {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  summary: string | null;
  properties: Record<string, unknown>;
  sensitivity: string;
  scope_user: string;
  merged_into: string | null;
  first_seen_at: string;
  last_seen_at: string;
  forgotten_at: string | null;
  /** How well it matched `q` (1 exact name, 0.9 alias, below: substring / trigram). */
  score?: number;
}

interface EntityRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  summary: string | null;
  properties: Record<string, unknown>;
  sensitivity: string;
  scope_user: string;
  merged_into: string | null;
  first_seen_at: Date;
  last_seen_at: Date;
  forgotten_at: Date | null;
  score?: number | null;
}

export const ENTITY_COLUMNS =
  'n.id, n.name, n.type, n.aliases, n.summary, n.properties, n.sensitivity, n.scope_user, n.merged_into, n.first_seen_at, n.last_seen_at, n.forgotten_at';

export function toEntityView(row: EntityRow): EntityView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    aliases: row.aliases,
    summary: row.summary,
    properties: row.properties,
    sensitivity: row.sensitivity,
    scope_user: row.scope_user,
    merged_into: row.merged_into,
    first_seen_at: row.first_seen_at.toISOString(),
    last_seen_at: row.last_seen_at.toISOString(),
    forgotten_at: row.forgotten_at ? row.forgotten_at.toISOString() : null,
    ...(row.score !== undefined && row.score !== null ? { score: Math.round(Number(row.score) * 1000) / 1000 } : {}),
  };
}

export interface EntityListRequest {
  q?: string;
  type?: string;
  limit: number;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Entities of the scope by name: exact canonical name, alias (any case),
 * substring, or trigram word similarity (a typo of the name or of one of its
 * words: "Bostn", pg_trgm's `%>` at its word_similarity_threshold, 0.6); most
 * recently seen first without `q`. Not whole-name similarity: the read pool
 * sets that threshold to 0.5 (core/db/pool.ts), under "Bostn"/"Boston" (0.44).
 */
export async function listEntities(db: Queryable, scope: ReadScope, request: EntityListRequest): Promise<EntityView[]> {
  const p = new SqlParams();
  let filter = entityFilter(p, scope);
  if (request.type) filter += ` AND n.type = ${p.add(request.type)}`;
  if (!request.q) {
    const { rows } = await db.query<EntityRow>(
      `SELECT ${ENTITY_COLUMNS} FROM entity n WHERE ${filter} ORDER BY n.last_seen_at DESC, n.id LIMIT ${p.add(request.limit)}`,
      p.values,
    );
    return rows.map(toEntityView);
  }
  const q = p.add(request.q);
  const like = p.add(`%${escapeLike(request.q)}%`);
  const { rows } = await db.query<EntityRow>(
    `WITH m AS (
       SELECT id, max(score) AS score FROM (
         SELECT n.id, 1.0::float8 AS score FROM entity n WHERE ${filter} AND n.name_key = lower(${q})
         UNION ALL
         SELECT n.id, 0.9 FROM entity n WHERE ${filter} AND EXISTS (SELECT 1 FROM unnest(n.aliases) a WHERE lower(a) = lower(${q}))
         UNION ALL
         SELECT n.id, 0.6 + 0.2 * similarity(n.name, ${q}) FROM entity n WHERE ${filter} AND n.name ILIKE ${like}
         UNION ALL
         SELECT n.id, 0.8 * word_similarity(${q}, n.name) FROM entity n WHERE ${filter} AND n.name %> ${q}
       ) x GROUP BY id)
     SELECT ${ENTITY_COLUMNS}, m.score FROM m JOIN entity n ON n.id = m.id
     ORDER BY m.score DESC, n.last_seen_at DESC, n.id LIMIT ${p.add(request.limit)}`,
    p.values,
  );
  return rows.map(toEntityView);
}

/**
 * One entity of the scope; null when it is not visible here. The id of an
 * entity merged into another answers with the survivor (merges keep chains one hop).
 */
export async function getEntity(db: Queryable, scope: ReadScope, id: string): Promise<EntityView | null> {
  const p = new SqlParams();
  const { rows } = await db.query<EntityRow>(
    `SELECT ${ENTITY_COLUMNS} FROM entity asked JOIN entity n ON n.id = COALESCE(asked.merged_into, asked.id)
      WHERE asked.id = ${p.add(id)} AND asked.namespace = ${p.add(scope.namespace)} AND ${entityFilter(p, scope, 'n', { includeMerged: true })}`,
    p.values,
  );
  return rows[0] ? toEntityView(rows[0]) : null;
}
