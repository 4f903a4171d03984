import type { Queryable } from '../../db/pool.js';
import type { SqlParams } from '../sql.js';
import type { RankedList, ResultKind, SignalName } from '../types.js';
import type { SignalInput } from './context.js';

/**
 * One signal's share of the search's combined statement: the CTEs it needs
 * and one parenthesized branch per kind of row, each selecting
 * `signal, kind, id, score, tiebreak` (float8), best first by score then
 * tiebreak. Signals that need one query each are sent as one statement: on
 * this kind of host a round trip to PostgreSQL costs more CPU than most of
 * these queries do.
 */
export interface SignalBranches {
  signal: SignalName;
  /** The lists this signal returns, in order (one per kind, empty or not). */
  kinds: ResultKind[];
  ctes: string[];
  branches: string[];
}

/** Builds a signal's branches with the statement's shared parameters; null when the signal has nothing to ask. */
export type SignalBranchBuilder = (input: SignalInput, p: SqlParams) => Promise<SignalBranches | null>;

interface SignalRow {
  signal: SignalName;
  kind: ResultKind;
  id: string;
  score: number;
  tiebreak: number;
}

/** The kinds among `candidates` that the search asks for. */
export function requestedKinds<K extends ResultKind>(input: SignalInput, candidates: readonly K[]): K[] {
  return candidates.filter((kind) => input.kinds.has(kind));
}

/** Runs every part in one statement and splits the rows back into ranked lists, per signal in the parts' order. */
export async function runSignalStatement(db: Queryable, p: SqlParams, parts: SignalBranches[]): Promise<Map<SignalName, RankedList[]>> {
  const lists = new Map<SignalName, RankedList[]>();
  const branches = parts.flatMap((part) => part.branches);
  if (!branches.length) return lists;
  const ctes = parts.flatMap((part) => part.ctes);
  const { rows } = await db.query<SignalRow>(`${ctes.length ? `WITH ${ctes.join(', ')} ` : ''}${branches.join(' UNION ALL ')}`, p.values);
  const byList = new Map<string, SignalRow[]>();
  for (const row of rows) {
    const key = `${row.signal}:${row.kind}`;
    const list = byList.get(key);
    if (list) list.push(row);
    else byList.set(key, [row]);
  }
  for (const part of parts) {
    lists.set(
      part.signal,
      part.kinds.map((kind) => ({
        signal: part.signal,
        kind,
        hits: (byList.get(`${part.signal}:${kind}`) ?? [])
          .sort((a, b) => b.score - a.score || b.tiebreak - a.tiebreak)
          .map((r) => ({ id: r.id, score: Number(r.score) })),
      })),
    );
  }
  return lists;
}
