import { effectiveConfidenceSql } from './decaySql.js';
import type { SqlParams } from './sql.js';

/** Who and when a read is about. Every query of the read path is built from one of these. */
export interface ReadScope {
  namespace: string;
  userId?: string;
  agentId?: string;
  runId?: string;
  /** World-time instant the read is about; undefined means now. */
  asOf?: Date;
  now: Date;
  /** Soft-deleted rows too (operator keys only; the route checks the role). */
  includeForgotten: boolean;
  /** Stale facts too (decayed below DECAY_FLOOR by the dream); only the fact-list and entity routes offer it. */
  includeStale?: boolean;
  /**
   * Leaves out facts whose effective confidence at the reference time is below
   * this: the context block applies DECAY_FLOOR at its own instant, so what it
   * lists does not depend on whether the dream has marked them stale yet.
   */
  minConfidence?: number;
}

/** The scope's floor on effective confidence at the reference time, if it has one (parameters are added only then). */
function confidenceFloor(p: SqlParams, scope: ReadScope, a: string, t: () => string): string[] {
  return scope.minConfidence === undefined ? [] : [`${effectiveConfidenceSql(a, t())} >= ${p.add(scope.minConfidence)}`];
}

/** The instant validity and decay are evaluated at. */
export function referenceTime(scope: ReadScope): Date {
  return scope.asOf ?? scope.now;
}

/** Episodes of the scope: namespace, user, agent, run; as_of keeps those that had happened by then. */
export function episodeFilter(p: SqlParams, scope: ReadScope, a = 'e'): string {
  const parts = [`${a}.namespace = ${p.add(scope.namespace)}`];
  if (scope.userId !== undefined) parts.push(`${a}.user_id = ${p.add(scope.userId)}`);
  if (scope.agentId !== undefined) parts.push(`${a}.agent_id = ${p.add(scope.agentId)}`);
  if (scope.runId !== undefined) parts.push(`${a}.run_id = ${p.add(scope.runId)}`);
  if (!scope.includeForgotten) parts.push(`${a}.forgotten_at IS NULL`);
  if (scope.asOf) parts.push(`${a}.occurred_at <= ${p.add(scope.asOf)}::timestamptz`);
  return parts.join(' AND ');
}

/**
 * Facts of the scope that hold at the reference time. Now: valid in world time
 * and not expired in system time. as_of=T: valid at T as recorded by now, so a
 * fact superseded later (invalid_at and expired_at set by its successor) is
 * still true at T; an expired fact with no world-time end was retracted and
 * never counts.
 */
export function factFilter(p: SqlParams, scope: ReadScope, a = 'f'): string {
  const t = `${p.add(referenceTime(scope))}::timestamptz`;
  const parts = [`${a}.namespace = ${p.add(scope.namespace)}`];
  if (scope.userId !== undefined) parts.push(`${a}.scope_user = ${p.add(scope.userId)}`);
  if (!scope.includeForgotten) parts.push(`${a}.forgotten_at IS NULL`);
  if (!scope.includeStale) parts.push(`NOT ${a}.stale`);
  parts.push(`(${a}.valid_from IS NULL OR ${a}.valid_from <= ${t})`);
  parts.push(`(${a}.invalid_at IS NULL OR ${a}.invalid_at > ${t})`);
  parts.push(scope.asOf ? `(${a}.expired_at IS NULL OR ${a}.invalid_at IS NOT NULL)` : `${a}.expired_at IS NULL`);
  parts.push(...confidenceFloor(p, scope, a, () => t));
  return parts.join(' AND ');
}

/** Live entities of the scope (not merged away unless asked); as_of keeps those first seen by then. */
export function entityFilter(p: SqlParams, scope: ReadScope, a = 'n', options: { includeMerged?: boolean } = {}): string {
  const parts = [`${a}.namespace = ${p.add(scope.namespace)}`];
  if (scope.userId !== undefined) parts.push(`${a}.scope_user = ${p.add(scope.userId)}`);
  if (!scope.includeForgotten) parts.push(`${a}.forgotten_at IS NULL`);
  if (!options.includeMerged) parts.push(`${a}.merged_into IS NULL`);
  if (scope.asOf) parts.push(`${a}.first_seen_at <= ${p.add(scope.asOf)}::timestamptz`);
  return parts.join(' AND ');
}

/** Facts of the scope whose world-time validity overlaps [start, end), as recorded by now (the temporal signal). */
export function factOverlapFilter(p: SqlParams, scope: ReadScope, start: Date, end: Date, a = 'f'): string {
  const parts = [`${a}.namespace = ${p.add(scope.namespace)}`];
  if (scope.userId !== undefined) parts.push(`${a}.scope_user = ${p.add(scope.userId)}`);
  if (!scope.includeForgotten) parts.push(`${a}.forgotten_at IS NULL`);
  if (!scope.includeStale) parts.push(`NOT ${a}.stale`);
  parts.push(`${a}.valid_from IS NOT NULL AND ${a}.valid_from < ${p.add(end)}::timestamptz`);
  parts.push(`(${a}.invalid_at IS NULL OR ${a}.invalid_at > ${p.add(start)}::timestamptz)`);
  parts.push(`(${a}.expired_at IS NULL OR ${a}.invalid_at IS NOT NULL)`);
  if (scope.asOf) parts.push(`${a}.valid_from <= ${p.add(scope.asOf)}::timestamptz`);
  parts.push(...confidenceFloor(p, scope, a, () => `${p.add(referenceTime(scope))}::timestamptz`));
  return parts.join(' AND ');
}
