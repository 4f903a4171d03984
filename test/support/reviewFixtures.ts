import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../core/db/pool.js';
import type { TestStack } from './stack.js';

/** Review items and the graph rows they are about, written as the pipeline and the dream write them. */

export async function ensureNamespace(db: Queryable, namespace: string): Promise<void> {
  await db.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [namespace]);
}

export async function insertEpisode(db: Queryable, namespace: string, content: string, occurredAt = '2026-05-01T09:00:00Z'): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO episode (id, namespace, content, occurred_at, status, workflow_id) VALUES ($1, $2, $3, $4, 'extracted', $5)`,
    [id, namespace, content, occurredAt, `episode:${id}`],
  );
  return id;
}

export async function insertEntity(
  db: Queryable,
  namespace: string,
  name: string,
  options: { type?: string; aliases?: string[]; episodeId?: string; seenAt?: string } = {},
): Promise<string> {
  const id = randomUUID();
  const seen = options.seenAt ?? '2026-05-01T09:00:00Z';
  await db.query(
    `INSERT INTO entity (id, namespace, type, name, name_key, aliases, first_seen_at, last_seen_at)
     VALUES ($1, $2, $3, $4, lower($4), $5, $6, $6)`,
    [id, namespace, options.type ?? 'organization', name, options.aliases ?? [], seen],
  );
  if (options.episodeId) {
    await db.query('INSERT INTO entity_episode (entity_id, episode_id, surface) VALUES ($1, $2, $3)', [id, options.episodeId, name]);
  }
  return id;
}

export interface FactSpec {
  subjectId: string;
  predicate: string;
  objectId?: string;
  value?: string;
  text: string;
  episodeId?: string;
  validFrom?: string | null;
  confirmedAt?: string;
  confidence?: number;
  /** Held back for an operator (an equal-confidence conflict's new candidate). */
  pendingReview?: boolean;
}

export async function insertFact(db: Queryable, namespace: string, spec: FactSpec): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO fact (id, namespace, subject_id, predicate, predicate_raw, family, object_id, value, fact_text, memory_kind,
                       confidence, decay_class, last_confirmed_at, valid_from, expired_at, source, sensitivity, properties)
     VALUES ($1, $2, $3, $4, $4, 'work', $5, $6, $7, 'semantic', $8, 'slow_decay', $9, $10,
             CASE WHEN $11::boolean THEN now() END, 'test', 'internal', $12)`,
    [
      id, namespace, spec.subjectId, spec.predicate, spec.objectId ?? null, spec.value ?? null, spec.text, spec.confidence ?? 0.7,
      spec.confirmedAt ?? '2026-05-01T09:00:00Z', spec.validFrom ?? null, spec.pendingReview ?? false,
      JSON.stringify(spec.pendingReview ? { pending_review: true } : {}),
    ],
  );
  if (spec.episodeId) await db.query(`INSERT INTO fact_episode (fact_id, episode_id, relation) VALUES ($1, $2, 'created')`, [id, spec.episodeId]);
  return id;
}

export async function insertReview(
  db: Queryable,
  namespace: string,
  item: { kind: string; title?: string; payload?: Record<string, unknown>; factIds?: string[]; entityIds?: string[]; createdAt?: string },
): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO review_item (id, namespace, kind, title, payload, fact_ids, entity_ids, created_at)
     VALUES ($1, $2, $3, $4, $5, $6::uuid[], $7::uuid[], COALESCE($8::timestamptz, now()))`,
    [id, namespace, item.kind, item.title ?? `${item.kind} item`, JSON.stringify(item.payload ?? {}), item.factIds ?? [], item.entityIds ?? [], item.createdAt ?? null],
  );
  return id;
}

/** A merge proposal as the dream writes it: entity_ids [survivor, loser]. */
export function insertMergeProposal(db: Queryable, namespace: string, survivorId: string, loserId: string): Promise<string> {
  return insertReview(db, namespace, {
    kind: 'merge',
    title: 'Merge proposal',
    entityIds: [survivorId, loserId],
    payload: { survivor_id: survivorId, loser_id: loserId, reason: 'similar names', similarity: 0.91 },
  });
}

export interface AcmeGraph {
  acme: string;
  acmeCorp: string;
  alice: string;
  episodes: { first: string; second: string };
  facts: { aliceAtAcme: string; aliceAtAcmeCorp: string; acmeHq: string; acmeCorpHq: string; acmeCorpFounded: string; bobAtAcmeCorp: string };
  bob: string;
}

/**
 * "Acme" and "Acme Corp", the same company learnt from two episodes: two
 * statements that become identical once merged (Alice works at it; it is
 * headquartered in Berlin) and two that only the loser had.
 */
export async function insertAcmeGraph(db: Queryable, namespace: string): Promise<AcmeGraph> {
  await ensureNamespace(db, namespace);
  const first = await insertEpisode(db, namespace, 'Alice works at Acme, headquartered in Berlin.', '2026-05-01T09:00:00Z');
  const second = await insertEpisode(db, namespace, 'Alice and Bob work at Acme Corp (Berlin), founded in 1999.', '2026-06-01T09:00:00Z');
  const acme = await insertEntity(db, namespace, 'Acme', { aliases: ['ACME Inc'], episodeId: first, seenAt: '2026-05-01T09:00:00Z' });
  const acmeCorp = await insertEntity(db, namespace, 'Acme Corp', { aliases: ['AcmeCo', 'acme'], episodeId: second, seenAt: '2026-06-01T09:00:00Z' });
  const alice = await insertEntity(db, namespace, 'Alice', { type: 'person', episodeId: first });
  const bob = await insertEntity(db, namespace, 'Bob', { type: 'person', episodeId: second });
  const facts = {
    aliceAtAcme: await insertFact(db, namespace, { subjectId: alice, predicate: 'works_at', objectId: acme, text: 'Alice works at Acme.', episodeId: first }),
    aliceAtAcmeCorp: await insertFact(db, namespace, { subjectId: alice, predicate: 'works_at', objectId: acmeCorp, text: 'Alice works at Acme Corp.', episodeId: second, confirmedAt: '2026-06-01T09:00:00Z' }),
    acmeHq: await insertFact(db, namespace, { subjectId: acme, predicate: 'headquartered_in', value: 'Berlin', text: 'Acme is headquartered in Berlin.', episodeId: first }),
    acmeCorpHq: await insertFact(db, namespace, { subjectId: acmeCorp, predicate: 'headquartered_in', value: 'berlin', text: 'Acme Corp is in Berlin.', episodeId: second, confirmedAt: '2026-06-01T09:00:00Z' }),
    acmeCorpFounded: await insertFact(db, namespace, { subjectId: acmeCorp, predicate: 'founded_in', value: '1999', text: 'Acme Corp was founded in 1999.', episodeId: second }),
    bobAtAcmeCorp: await insertFact(db, namespace, { subjectId: bob, predicate: 'works_at', objectId: acmeCorp, text: 'Bob works at Acme Corp.', episodeId: second }),
  };
  return { acme, acmeCorp, alice, bob, episodes: { first, second }, facts };
}

/** An equal-confidence conflict as the commit stage leaves it: the new candidate held back (expired, pending_review). */
export async function insertConflict(db: Queryable, namespace: string): Promise<{ reviewId: string; existing: string; candidate: string; nadia: string }> {
  await ensureNamespace(db, namespace);
  const episode = await insertEpisode(db, namespace, 'Nadia works at Initech.');
  const nadia = await insertEntity(db, namespace, 'Nadia', { type: 'person' });
  const globex = await insertEntity(db, namespace, 'Globex');
  const initech = await insertEntity(db, namespace, 'Initech');
  const existing = await insertFact(db, namespace, { subjectId: nadia, predicate: 'works_at', objectId: globex, text: 'Nadia works at Globex.', validFrom: '2026-05-01T00:00:00Z' });
  const candidate = await insertFact(db, namespace, {
    subjectId: nadia, predicate: 'works_at', objectId: initech, text: 'Nadia works at Initech.', validFrom: '2026-05-01T00:00:00Z', episodeId: episode, pendingReview: true,
  });
  const reviewId = await insertReview(db, namespace, { kind: 'conflict', title: 'Conflict: same valid time', factIds: [existing, candidate], payload: { reason: 'contradiction (same valid time) with equal confidence 0.7' } });
  return { reviewId, existing, candidate, nadia };
}

/** Polls `GET /v1/reviews/:id` until the item is decided. */
export async function waitForDecision<T extends { status: string }>(stack: TestStack, id: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await stack.request<T>('GET', `/v1/reviews/${id}`);
    if (res.status === 200 && res.body.status === 'decided') return res.body;
    if (Date.now() > deadline) throw new Error(`review ${id} was not decided (last: ${JSON.stringify(res.body)})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
