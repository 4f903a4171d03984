import type { Queryable } from '../db/pool.js';
import { factEpisodeIdsSql } from './facts.js';
import type { Fused } from './fusion.js';
import { producedFactsColumn, standingsByEpisode, type MemoryStanding, type ProducedFactJson } from './memoryStatus.js';
import type { ReadScope } from './scope.js';
import { snippet } from './snippet.js';
import { SqlParams } from './sql.js';
import type { ResultKind, SearchResult } from './types.js';

interface Row {
  kind: ResultKind;
  id: string;
  text: string;
  occurred_at: Date | null;
  episode_ids: string[];
  speaker: string | null;
  /** For an episode, when asked for: the facts it produced (memoryStatus.ts). */
  produced: ProducedFactJson[] | null;
}

/** Episodes an entity result points at (its most recent mentions): enough to cite, few enough to read. */
const ENTITY_EPISODES = 5;

/** Search results with, for each episode among them that produced facts, where its statements stand. */
export interface HydratedWithStandings {
  results: SearchResult[];
  standings: Map<string, MemoryStanding>;
}

/**
 * Text, time and provenance of the fused top rows, in one statement. The
 * namespace is checked again here so a bug upstream can never surface another
 * namespace's row; facts hanging on a forgotten entity are dropped.
 */
export async function hydrate(
  db: Queryable,
  scope: ReadScope,
  items: Fused[],
  terms: string[],
  snippetChars = 240,
): Promise<SearchResult[]> {
  return (await hydrateRows(db, scope, items, terms, snippetChars, false)).results;
}

/** `hydrate`, and in the same statement the standing of each episode's statements (what a context block marks). */
export function hydrateWithStandings(db: Queryable, scope: ReadScope, items: Fused[], terms: string[], snippetChars: number): Promise<HydratedWithStandings> {
  return hydrateRows(db, scope, items, terms, snippetChars, true);
}

async function hydrateRows(
  db: Queryable,
  scope: ReadScope,
  items: Fused[],
  terms: string[],
  snippetChars: number,
  withStandings: boolean,
): Promise<HydratedWithStandings> {
  if (!items.length) return { results: [], standings: new Map() };
  const p = new SqlParams();
  const ns = p.add(scope.namespace);
  const live = (a: string) => (scope.includeForgotten ? 'true' : `${a}.forgotten_at IS NULL`);
  const ids = (kind: ResultKind) => `${p.add(items.filter((i) => i.kind === kind).map((i) => i.id))}::uuid[]`;
  const produced = withStandings ? producedFactsColumn(p, scope, 'e') : 'NULL::json';
  const sql = `
    SELECT 'episode' AS kind, e.id, e.content AS text, e.occurred_at, ARRAY[e.id] AS episode_ids, e.speaker, ${produced} AS produced
      FROM episode e WHERE e.id = ANY(${ids('episode')}) AND e.namespace = ${ns}
    UNION ALL
    SELECT 'fact', f.id, f.fact_text,
      coalesce(f.valid_from, (SELECT min(e.occurred_at) FROM fact_episode fe JOIN episode e ON e.id = fe.episode_id WHERE fe.fact_id = f.id), f.recorded_at),
      ${factEpisodeIdsSql(ns, live('e'))},
      NULL, NULL
      FROM fact f JOIN entity s ON s.id = f.subject_id LEFT JOIN entity o ON o.id = f.object_id
      WHERE f.id = ANY(${ids('fact')}) AND f.namespace = ${ns} AND ${live('s')} AND (o.id IS NULL OR ${live('o')})
    UNION ALL
    SELECT 'entity', n.id, n.name || coalesce(' — ' || n.summary, ''), n.last_seen_at,
      ARRAY(SELECT e.id FROM entity_episode ee JOIN episode e ON e.id = ee.episode_id
            WHERE ee.entity_id = n.id AND e.namespace = ${ns} AND ${live('e')} ORDER BY e.occurred_at DESC, e.id LIMIT ${ENTITY_EPISODES}),
      NULL, NULL
      FROM entity n WHERE n.id = ANY(${ids('entity')}) AND n.namespace = ${ns} AND ${live('n')}`;
  const { rows } = await db.query<Row>(sql, p.values);
  const byKey = new Map(rows.map((r) => [`${r.kind}:${r.id}`, r]));
  const results: SearchResult[] = [];
  for (const item of items) {
    const row = byKey.get(`${item.kind}:${item.id}`);
    if (!row) continue;
    results.push({
      type: item.kind,
      id: item.id,
      score: Number(item.score.toFixed(6)),
      snippet: snippet(row.text, terms, snippetChars),
      matched_by: item.matchedBy,
      episode_ids: row.episode_ids,
      occurred_at: row.occurred_at ? row.occurred_at.toISOString() : null,
      ...(item.kind === 'episode' ? { speaker: row.speaker } : {}),
    });
  }
  return { results, standings: withStandings ? standingsByEpisode(scope, rows) : new Map() };
}
