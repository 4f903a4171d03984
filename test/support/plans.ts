import type { Pool } from '../../core/db/pool.js';

/** One node of an EXPLAIN (FORMAT JSON) tree; VERBOSE adds expression keys (Output, Filter, …). */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Loops'?: number;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

/** Every node of a plan tree, depth first. */
export const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** A bound value as text for EXECUTE's arguments, which take no bind parameters: typed by the prepared statement. */
function asText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return `{${value.map((x) => (x === null ? 'NULL' : `"${String(x).replace(/["\\]/g, '\\$&')}"`)).join(',')}}`;
  return String(value);
}

let prepared = 0;

/**
 * `EXPLAIN (<options>)` of a statement as the read path runs it: prepared on one of the pool's connections (the
 * read pool's sessions force generic plans) and executed with `values`. An EXPLAIN with the values bound would
 * plan for those values instead, and fold `to_tsquery('english', 'words')` into a constant. Returns the plan's rows.
 */
export async function explainPrepared<R = { 'QUERY PLAN': unknown }>(pool: Pool, sql: string, values: unknown[], options: string): Promise<R[]> {
  const name = `explained_${++prepared}`;
  const client = await pool.connect();
  try {
    await client.query(`PREPARE ${name} AS ${sql}`);
    const args = values.map((v) => (v === null || v === undefined ? 'NULL' : client.escapeLiteral(asText(v)))).join(', ');
    return (await client.query(`EXPLAIN (${options}) EXECUTE ${name}(${args})`)).rows as R[];
  } finally {
    await client.query(`DEALLOCATE ${name}`);
    client.release();
  }
}

/** The root of the read path's plan for a statement (see explainPrepared); `options` adds to FORMAT JSON. */
export async function preparedPlan(pool: Pool, sql: string, values: unknown[], options: string[] = []): Promise<PlanNode> {
  const rows = await explainPrepared<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(pool, sql, values, [...options, 'FORMAT JSON'].join(', '));
  return rows[0]['QUERY PLAN'][0].Plan;
}
