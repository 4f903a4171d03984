import type { Deps } from '../deps.js';
import { nameKey } from '../domain/canonical.js';
import { SqlParams } from '../retrieval/sql.js';
import { FACT_VIEW_COLUMNS, toFactView, type FactRow as ViewRow } from '../retrieval/facts.js';

export interface FactFilter {
  namespace: string;
  userId?: string;
  /** Entity id, or a name/alias matched case-insensitively. */
  subject?: string;
  predicate?: string;
  family?: string;
  /** World-time instant: the facts believed to hold then. Default: now. */
  asOf?: Date;
  includeInvalidated?: boolean;
  includeForgotten?: boolean;
  /** Facts the dream marked stale too (default: left out). */
  includeStale?: boolean;
  limit: number;
}

/** A fact row of the listing: what every read returns, plus the correction history. */
interface FactRow extends ViewRow {
  confirmation_count: number;
  previous_values: unknown;
  properties: unknown;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The SQL condition for "believed to hold at $instant": inside its world-time
 * interval and not retracted (expired without having been superseded, e.g. a
 * conflict awaiting review).
 */
export function validAtSql(alias: string, param: string): string {
  return `(${alias}.valid_from IS NULL OR ${alias}.valid_from <= ${param})
      AND (${alias}.invalid_at IS NULL OR ${alias}.invalid_at > ${param})
      AND NOT (${alias}.expired_at IS NOT NULL AND ${alias}.invalid_at IS NULL)`;
}

export function factView(row: FactRow, now: Date) {
  return {
    ...toFactView(row, now),
    confirmation_count: row.confirmation_count,
    previous_values: row.previous_values,
    properties: row.properties,
  };
}

export type FactView = ReturnType<typeof factView>;

const FACT_SELECT_TEMPLATE = `
  SELECT ${FACT_VIEW_COLUMNS}, f.confirmation_count, f.previous_values, f.properties,
         ARRAY(SELECT fe.episode_id FROM fact_episode fe JOIN episode e ON e.id = fe.episode_id
                WHERE fe.fact_id = f.id AND (e.forgotten_at IS NULL OR $INCLUDE_FORGOTTEN) ORDER BY fe.created_at) AS episode_ids
    FROM fact f
    JOIN entity s ON s.id = f.subject_id
    LEFT JOIN entity o ON o.id = f.object_id`;

/** The fact columns plus subject/object and supporting episodes (forgotten episodes only when asked for). */
export function factSelect(includeForgotten: boolean): string {
  return FACT_SELECT_TEMPLATE.replace('$INCLUDE_FORGOTTEN', includeForgotten ? 'true' : 'false');
}

/** Deterministic fact listing: by subject / predicate / family, at any instant, with or without history. */
export async function listFacts(deps: Pick<Deps, 'pool' | 'now'>, filter: FactFilter): Promise<FactView[]> {
  const now = deps.now();
  const p = new SqlParams();
  const where = [`f.namespace = ${p.add(filter.namespace)}`];
  if (filter.userId !== undefined) where.push(`f.scope_user = ${p.add(filter.userId)}`);
  if (filter.subject && UUID.test(filter.subject)) {
    // A merged entity's id lists the facts of the entity it was merged into.
    const id = `${p.add(filter.subject)}::uuid`;
    where.push(`f.subject_id = COALESCE((SELECT m.merged_into FROM entity m WHERE m.id = ${id} AND m.namespace = f.namespace), ${id})`);
  } else if (filter.subject) {
    const key = p.add(nameKey(filter.subject));
    const raw = p.add(filter.subject);
    where.push(`(s.name_key = ${key} OR EXISTS (SELECT 1 FROM unnest(s.aliases) a WHERE lower(a) = ${key} OR lower(a) = lower(${raw})))`);
  }
  if (filter.predicate) where.push(`f.predicate = ${p.add(filter.predicate)}`);
  if (filter.family) where.push(`f.family = ${p.add(filter.family)}`);
  // A forgotten entity hides its facts with it.
  if (!filter.includeForgotten) where.push('f.forgotten_at IS NULL AND s.forgotten_at IS NULL AND (o.id IS NULL OR o.forgotten_at IS NULL)');
  if (!filter.includeStale) where.push('NOT f.stale');
  if (!filter.includeInvalidated) where.push(validAtSql('f', `${p.add((filter.asOf ?? now).toISOString())}::timestamptz`));
  const { rows } = await deps.pool.query<FactRow>(
    `${factSelect(filter.includeForgotten ?? false)}
      WHERE ${where.join(' AND ')}
      ORDER BY f.valid_from DESC NULLS LAST, f.recorded_at DESC, f.id
      LIMIT ${p.add(filter.limit)}`,
    p.values,
  );
  return rows.map((r) => factView(r, now));
}
