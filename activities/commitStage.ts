import { writeAudit, type AuditCause, type AuditEntry } from '../core/audit/auditLog.js';
import { currentWorkflow } from './context.js';
import { toVectorSql, withTransaction, type PoolClient } from '../core/db/pool.js';
import type { CommitResult, EpisodeSnapshot, ResolvedEntity, TimedFact, WritePlan } from '../core/ingest/contracts.js';
import { MAX_GRAPH_WRITES_PER_EPISODE, storedFactText } from '../core/ingest/contracts.js';
import { nameKey as canonicalKey } from '../core/domain/canonical.js';
import { applyWriteLimit } from '../core/ingest/writeLimit.js';
import { contentTypeOf } from '../core/sources/contentType.js';
import { graphWriteLimit } from '../core/sources/limits.js';
import type { ActivityDeps } from './deps.js';
import { recordStage, type StageRunLog } from './stageRecorder.js';
import { settlePlan } from './settleInsert.js';
import { startReviewWorkflows } from '../core/reviews/start.js';
import { settleReplacedContent } from '../core/memories/update.js';

const ACTOR = 'workflow:ingestEpisode';

const vectorOrNull = (v: number[] | undefined) => (v ? toVectorSql(v) : null);

function auditRow(action: string, target: { type: string; id: string | null }, before: unknown, after: unknown): AuditEntry {
  return { action, targetType: target.type, targetId: target.id, before, after };
}

export function provenance(episode: EpisodeSnapshot): string {
  return [
    episode.source,
    `namespace:${episode.namespace}`,
    episode.agentId && `agent:${episode.agentId}`,
    episode.runId && `run:${episode.runId}`,
    `episode:${episode.id}`,
  ]
    .filter(Boolean)
    .join('/');
}

/**
 * What concurrent commits must not do at once: create the same entity (keyed by
 * name, since two episodes may give one new entity different provisional ids)
 * or decide about the same subject and predicate (the "same statement" check
 * and contradictions). Entities that are only mentioned are not locked, so the
 * turns of one speaker commit in parallel.
 */
function commitLockKeys(episode: EpisodeSnapshot, entities: ResolvedEntity[], facts: TimedFact[]): string[] {
  const scope = `${episode.namespace}:${episode.userId ?? ''}`;
  const nameOf = new Map(entities.map((e) => [e.id, canonicalKey(e.name)]));
  const keys = entities.filter((e) => e.isNew).map((e) => `entity:${scope}:${canonicalKey(e.name)}`);
  // Every slot the episode speaks about: a single-valued slot's whole chain is re-planned under this lock.
  for (const f of facts) keys.push(`fact:${scope}:${nameOf.get(f.subjectId) ?? f.subjectId}:${f.candidate.predicate}`);
  return [...new Set(keys)].sort();
}

/** Advisory locks taken in one sorted statement before any row is written: commits cannot deadlock on them. */
async function lockInOrder(tx: PoolClient, keys: string[]): Promise<void> {
  if (keys.length) await tx.query('SELECT pg_advisory_xact_lock(hashtext(k)) FROM (SELECT unnest($1::text[]) AS k ORDER BY 1) AS keys', [keys]);
}

async function committedIds(tx: PoolClient, episodeId: string): Promise<{ entityIds: string[]; factIds: string[] }> {
  const { rows } = await tx.query<{ entity_ids: string[]; fact_ids: string[] }>(
    `SELECT ARRAY(SELECT entity_id FROM entity_episode WHERE episode_id = $1 ORDER BY entity_id)::text[] AS entity_ids,
            ARRAY(SELECT DISTINCT fact_id FROM fact_episode WHERE episode_id = $1 ORDER BY fact_id)::text[] AS fact_ids`,
    [episodeId],
  );
  return { entityIds: rows[0].entity_ids, factIds: rows[0].fact_ids };
}

type Rechain = NonNullable<WritePlan['rechains']>[number];

/** `properties.stated_from`, kept only when a fact stands for more than one statement. */
export function statedFromProperty(statedFrom: string[] | undefined): { stated_from?: string[] } {
  return statedFrom && statedFrom.length > 1 ? { stated_from: statedFrom } : {};
}

/**
 * Moves stored facts within their chain (a late value slotted in before them,
 * a confirmation reached back to an earlier start): one audit row per moved
 * interval set, so a slot-in reads as one change.
 */
export async function applyRechains(tx: PoolClient, rechains: Rechain[], factLinks: Array<{ fact_id: string; relation: string }>): Promise<AuditEntry[]> {
  const byCause = new Map<string, Array<{ id: string; before: unknown; after: unknown }>>();
  for (const r of rechains) {
    const { rows } = await tx.query<{ valid_from: Date | null; invalid_at: Date | null; invalidated_by: string | null }>(
      `UPDATE fact AS f SET valid_from = $2, invalid_at = $3, invalidated_by = $4, updated_at = now(),
              expired_at = CASE WHEN $4::uuid IS NOT NULL THEN COALESCE(f.expired_at, now()) WHEN $3::timestamptz IS NULL THEN NULL ELSE f.expired_at END,
              properties = (f.properties - 'stated_from') || $5::jsonb
         FROM fact AS old WHERE f.id = $1 AND old.id = f.id
       RETURNING old.valid_from, old.invalid_at, old.invalidated_by`,
      [r.factId, r.validFrom, r.invalidAt, r.invalidatedBy, JSON.stringify(statedFromProperty(r.statedFrom))],
    );
    const before = rows[0];
    if (!before) continue;
    // Provenance names each episode once per fact: one that confirmed it (and so moved its start) is already linked.
    if (!factLinks.some((l) => l.fact_id === r.factId)) factLinks.push({ fact_id: r.factId, relation: 'rechained' });
    byCause.set(r.candidateId, [
      ...(byCause.get(r.candidateId) ?? []),
      {
        id: r.factId,
        before: { valid_from: before.valid_from?.toISOString() ?? null, invalid_at: before.invalid_at?.toISOString() ?? null, invalidated_by: before.invalidated_by },
        after: { valid_from: r.validFrom, invalid_at: r.invalidAt, invalidated_by: r.invalidatedBy },
      },
    ]);
  }
  return [...byCause].map(([candidateId, moved]) =>
    auditRow('fact.rechained', { type: 'fact', id: candidateId }, moved.map((m) => ({ id: m.id, ...(m.before as object) })), moved.map((m) => ({ id: m.id, ...(m.after as object) }))),
  );
}

export function createCommitActivities(deps: ActivityDeps, stageRuns: StageRunLog) {
  return {
    /**
     * Stage 7: one transaction for the whole episode — entities, facts,
     * updates, invalidations, provenance, audit rows, episode status. Keyed by
     * the episode: once it is `extracted`, a re-run commits nothing.
     */
    async commitEpisode(input: { episode: EpisodeSnapshot; entities: ResolvedEntity[]; plan: WritePlan }): Promise<CommitResult> {
      const { episode } = input;
      const wf = currentWorkflow();
      const cause: AuditCause = { namespace: episode.namespace, actor: ACTOR, workflowId: wf.workflowId, runId: wf.runId, episodeId: episode.id };
      const summary = {
        entities: input.entities.length,
        inserts: input.plan.inserts.length,
        confirmations: input.plan.confirmations.length,
        refinements: input.plan.refinements.length,
        invalidations: input.plan.invalidations.length,
        rejections: input.plan.rejections.length,
        reviews: input.plan.reviews.length,
      };
      return recordStage(stageRuns, 'commit', { namespace: episode.namespace, episodeId: episode.id }, summary, async () => {
        const writeLimit = graphWriteLimit(contentTypeOf(episode), MAX_GRAPH_WRITES_PER_EPISODE);
        const limited = applyWriteLimit(input.entities, input.plan, writeLimit);
        const { entities } = limited;
        // Statements whose insert the write limit dropped (or whose new entity it dropped) stay out of the re-plan too.
        const keptInserts = new Set(limited.plan.inserts.map((f) => f.id));
        const droppedEntities = new Set(input.entities.filter((e) => e.isNew && !entities.includes(e)).map((e) => e.id));
        const facts = (input.plan.facts ?? input.plan.inserts).filter(
          (f) =>
            (keptInserts.has(f.id) || !input.plan.inserts.some((x) => x.id === f.id)) &&
            !droppedEntities.has(f.subjectId) &&
            !(f.objectId && droppedEntities.has(f.objectId)),
        );
        // Embeddings may be a network call: compute them before the transaction opens.
        const newEntities = entities.filter((e) => e.isNew);
        const legacyRefinements = input.plan.facts ? [] : input.plan.refinements;
        const [entityVectors, factVectorList, refineVectors] = await Promise.all([
          deps.nameEmbedder.embed(newEntities.map((e) => e.name)),
          deps.embedder.embed(facts.map((f) => storedFactText(f.candidate))),
          deps.embedder.embed(legacyRefinements.map((r) => r.factText)),
        ]);
        const factVectors = new Map(facts.map((f, i) => [f.id, factVectorList[i]]));
        legacyRefinements.forEach((r, i) => factVectors.set(r.candidateId, refineVectors[i]));
        const occurredAt = episode.occurredAt;
        const scopeUser = episode.userId ?? '';
        // The person "I" refers to in a user's episode is that user: tag it so reads find "the user" directly.
        const userTag = (e: ResolvedEntity) =>
          episode.userId && episode.speaker && e.type === 'person' && canonicalKey(e.name) === canonicalKey(episode.speaker) ? { user_id: episode.userId } : {};
        const source = provenance(episode);

        const committed = await withTransaction(deps.pool, async (tx) => {
          const { rows: statusRows } = await tx.query<{ status: string; forgotten: boolean }>(
            'SELECT status, forgotten_at IS NOT NULL AS forgotten FROM episode WHERE id = $1 FOR UPDATE',
            [episode.id],
          );
          if (statusRows[0]?.status === 'extracted') {
            // A retry after the commit: start what the first attempt may not have reached.
            const { rows } = await tx.query<{ id: string }>(`SELECT id FROM review_item WHERE episode_id = $1 AND status = 'open' AND workflow_id IS NULL`, [episode.id]);
            return { result: { alreadyCommitted: true, ...(await committedIds(tx, episode.id)), droppedWrites: 0 }, reviewIds: rows.map((r) => r.id) };
          }
          if (statusRows[0]?.forgotten) {
            // Forgotten while it was being extracted: learn nothing from it.
            await tx.query(`UPDATE episode SET status = 'skipped', error = 'forgotten during extraction', updated_at = now() WHERE id = $1`, [episode.id]);
            return { result: { alreadyCommitted: false, entityIds: [], factIds: [], droppedWrites: 0 }, reviewIds: [] };
          }
          const auditRows: AuditEntry[] = [];
          const factLinks: Array<{ fact_id: string; relation: string }> = [];
          await lockInOrder(tx, commitLockKeys(episode, entities, facts));
          // Entities: new ones upserted on their live (namespace, scope, type, name) key, in one statement.
          const idMap = new Map<string, string>();
          if (newEntities.length) {
            const { rows } = await tx.query<{ id: string; type: string; name_key: string; inserted: boolean }>(
              `INSERT INTO entity (id, namespace, scope_user, type, name, name_key, aliases, properties, name_embedding, embedding_model, first_seen_at, last_seen_at)
               SELECT e.id, $1, $2, e.type, e.name, e.name_key, e.aliases, e.properties, e.embedding::vector, $3, $4, $4
                 FROM jsonb_to_recordset($5::jsonb) AS e(id uuid, type text, name text, name_key text, aliases text[], properties jsonb, embedding text)
               ON CONFLICT (namespace, scope_user, type, name_key) WHERE merged_into IS NULL AND forgotten_at IS NULL
               DO UPDATE SET aliases = ARRAY(SELECT DISTINCT unnest(entity.aliases || EXCLUDED.aliases)),
                             properties = entity.properties || EXCLUDED.properties,
                             last_seen_at = GREATEST(entity.last_seen_at, EXCLUDED.last_seen_at), updated_at = now()
               RETURNING id, type, name_key, (xmax = 0) AS inserted`,
              [
                episode.namespace, scopeUser, deps.nameEmbedder.model, occurredAt,
                JSON.stringify(newEntities.map((e, i) => ({ id: e.id, type: e.type, name: e.name, name_key: canonicalKey(e.name), aliases: e.aliases, properties: userTag(e), embedding: toVectorSql(entityVectors[i]) }))),
              ],
            );
            // Keyed once: a structured batch brings over a thousand entities, and a scan per entity blocked the event loop for seconds.
            const rowByKey = new Map(rows.map((r) => [`${r.type}\u0000${r.name_key}`, r]));
            for (const e of newEntities) {
              const row = rowByKey.get(`${e.type}\u0000${canonicalKey(e.name)}`);
              if (!row) continue;
              idMap.set(e.id, row.id);
              if (row.inserted) auditRows.push(auditRow('entity.created', { type: 'entity', id: row.id }, null, { name: e.name, type: e.type, aliases: e.aliases }));
            }
          }
          const known = entities.filter((x) => !x.isNew);
          if (known.length) {
            // Only rows that change are written (and so locked), in id order. last_seen_at moves in steps
            // of an hour at least: otherwise every turn of a conversation would rewrite, and queue on,
            // its speaker's row.
            await tx.query(
              `WITH k AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS k(id uuid, aliases text[], properties jsonb)),
                    target AS (
                      SELECT e.id FROM entity e JOIN k ON k.id = e.id
                       WHERE NOT (e.aliases @> k.aliases) OR NOT (e.properties @> k.properties) OR e.last_seen_at < $2::timestamptz - interval '1 hour'
                       ORDER BY e.id FOR UPDATE OF e)
               UPDATE entity SET aliases = ARRAY(SELECT DISTINCT unnest(entity.aliases || k.aliases)),
                      properties = entity.properties || k.properties,
                      last_seen_at = GREATEST(last_seen_at, $2), updated_at = now()
                 FROM k JOIN target ON target.id = k.id WHERE entity.id = k.id`,
              [JSON.stringify(known.map((e) => ({ id: e.id, aliases: e.aliases, properties: userTag(e) }))), occurredAt],
            );
            known.forEach((e) => idMap.set(e.id, e.id));
          }
          const linked = entities.filter((e) => idMap.has(e.id));
          if (linked.length) {
            await tx.query(
              `INSERT INTO entity_episode (entity_id, episode_id, surface)
               SELECT DISTINCT ON (l.entity_id) l.entity_id, $1, l.surface FROM jsonb_to_recordset($2::jsonb) AS l(entity_id uuid, surface text)
               ON CONFLICT DO NOTHING`,
              [episode.id, JSON.stringify(linked.map((e) => ({ entity_id: idMap.get(e.id), surface: e.name })))],
            );
          }
          const entityId = (id: string | null) => (id === null ? null : (idMap.get(id) ?? id));

          // Re-plan under the slots' locks, with real ids, against the graph as it is now.
          const plan = await settlePlan(tx, episode, input.plan, facts, entityId);
          // Existing facts this commit updates, locked up front in id order (no two commits wait on each other in a cycle).
          const touched = [...new Set([...plan.confirmations, ...plan.refinements, ...plan.invalidations, ...(plan.rechains ?? [])].map((t) => t.factId))].sort();
          if (touched.length) await tx.query('SELECT id FROM fact WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [touched]);

          // New facts (invalidated_by is linked afterwards: it may point at a fact inserted here).
          const reviewed = new Set(plan.reviews.map((r) => r.candidateId));
          // One statement for all of them: a structured batch inserts a thousand (rows travel as one JSON parameter).
          if (plan.inserts.length) {
            await tx.query(
              `INSERT INTO fact (id, namespace, scope_user, subject_id, predicate, predicate_raw, family, object_id, value, fact_text,
                                 memory_kind, importance, confidence, decay_class, last_confirmed_at, valid_from, invalid_at,
                                 expired_at, source, sensitivity, properties, embedding, embedding_model)
               SELECT r.id, $1, $2, r.subject_id, r.predicate, r.predicate_raw, r.family, r.object_id, r.value, r.fact_text,
                      r.memory_kind, r.importance, r.confidence, r.decay_class, $3, r.valid_from, r.invalid_at,
                      CASE WHEN r.expired THEN now() END, $4, r.sensitivity, r.properties, r.embedding::vector, $5
                 FROM jsonb_to_recordset($6::jsonb) AS r(id uuid, subject_id uuid, predicate text, predicate_raw text, family text,
                      object_id uuid, value text, fact_text text, memory_kind text, importance float8, confidence float8, decay_class text,
                      valid_from timestamptz, invalid_at timestamptz, expired boolean, sensitivity text, properties jsonb, embedding text)
               ON CONFLICT (id) DO NOTHING`,
              [
                episode.namespace, scopeUser, occurredAt, source, deps.embedder.model,
                JSON.stringify(
                  plan.inserts.map((f) => ({
                    id: f.id, subject_id: f.subjectId, predicate: f.candidate.predicate, predicate_raw: f.candidate.predicate_raw,
                    family: f.candidate.family, object_id: f.objectId, value: f.objectId ? null : f.candidate.value, fact_text: storedFactText(f.candidate),
                    memory_kind: f.candidate.memory_kind, importance: f.candidate.importance, confidence: f.candidate.confidence, decay_class: f.decayClass,
                    valid_from: f.validFrom, invalid_at: f.invalidAt,
                    // Awaiting review, or already closed by its successor (as a superseded fact is): not current in system time.
                    expired: reviewed.has(f.id) || !!f.invalidatedBy, sensitivity: f.sensitivity,
                    properties: { ...(reviewed.has(f.id) ? { pending_review: true } : {}), ...statedFromProperty(f.statedFrom) },
                    embedding: vectorOrNull(factVectors.get(f.id)),
                  })),
                ),
              ],
            );
          }
          for (const f of plan.inserts) {
            const c = f.candidate;
            factLinks.push({ fact_id: f.id, relation: 'created' });
            auditRows.push(auditRow('fact.created', { type: 'fact', id: f.id }, null, { fact_text: storedFactText(c), predicate: c.predicate, valid_from: f.validFrom, invalid_at: f.invalidAt, invalidated_by: f.invalidatedBy ?? null }));
          }
          // Later statements of a stored fact cut off by a value that slotted in: a copy of the fact holds them.
          for (const split of plan.splits ?? []) {
            await tx.query(
              `INSERT INTO fact (id, namespace, scope_user, subject_id, predicate, predicate_raw, family, object_id, value, fact_text,
                                 memory_kind, importance, confidence, decay_class, last_confirmed_at, confirmation_count, valid_from, invalid_at,
                                 expired_at, source, sensitivity, properties, embedding, embedding_model)
               SELECT $2, namespace, scope_user, subject_id, predicate, predicate_raw, family, object_id, value, fact_text,
                      memory_kind, importance, confidence, decay_class, last_confirmed_at, confirmation_count, $3, $4,
                      CASE WHEN $5::boolean THEN now() END, source, sensitivity,
                      (properties - 'stated_from') || $6::jsonb || jsonb_build_object('split_from', id), embedding, embedding_model
                 FROM fact WHERE id = $1
               ON CONFLICT (id) DO NOTHING`,
              [split.sourceFactId, split.factId, split.validFrom, split.invalidAt, !!split.invalidatedBy, JSON.stringify(statedFromProperty(split.statedFrom))],
            );
            await tx.query(
              `INSERT INTO fact_episode (fact_id, episode_id, relation, created_at) SELECT $2, episode_id, relation, created_at FROM fact_episode WHERE fact_id = $1 ON CONFLICT DO NOTHING`,
              [split.sourceFactId, split.factId],
            );
            factLinks.push({ fact_id: split.factId, relation: 'rechained' });
            auditRows.push(auditRow('fact.split', { type: 'fact', id: split.factId }, { fact_id: split.sourceFactId }, { valid_from: split.validFrom, invalid_at: split.invalidAt, invalidated_by: split.invalidatedBy, stated_from: split.statedFrom, by: split.candidateId }));
          }
          for (const f of [...plan.inserts.map((x) => ({ id: x.id, invalidatedBy: x.invalidatedBy ?? null })), ...(plan.splits ?? []).map((x) => ({ id: x.factId, invalidatedBy: x.invalidatedBy }))]) {
            if (f.invalidatedBy) await tx.query('UPDATE fact SET invalidated_by = $2 WHERE id = $1', [f.id, f.invalidatedBy]);
          }

          const confirm = async (id: string) => {
            await tx.query(
              `UPDATE fact SET last_confirmed_at = GREATEST(last_confirmed_at, $2), confirmation_count = confirmation_count + 1, updated_at = now(),
                      stale = stale AND $2::timestamptz <= last_confirmed_at -- a fresher confirmation revives a stale fact (the dream re-marks it if need be)
                WHERE id = $1`,
              [id, occurredAt],
            );
            factLinks.push({ fact_id: id, relation: 'confirmed' });
            auditRows.push(auditRow('fact.confirmed', { type: 'fact', id }, null, { last_confirmed_at: occurredAt }));
          };
          for (const c of plan.confirmations) await confirm(c.factId);

          for (const r of plan.refinements) {
            const { rows } = await tx.query<{ fact_text: string; value: string | null; object_id: string | null; confidence: number }>(
              'SELECT fact_text, value, object_id, confidence FROM fact WHERE id = $1', // locked above, with the other touched facts
              [r.factId],
            );
            const before = rows[0];
            if (!before) continue;
            if (before.fact_text === r.factText && before.object_id === entityId(r.objectId) && Number(before.confidence) >= r.confidence) {
              // Nothing left to refine (a concurrent episode wrote this very statement): it is a confirmation.
              await confirm(r.factId);
              continue;
            }
            const previous = { ...before, replaced_at: new Date().toISOString(), reason: r.reason, episode_id: episode.id };
            await tx.query(
              `UPDATE fact SET fact_text = $2, value = $3, object_id = $4, confidence = $5, previous_values = previous_values || $6::jsonb,
                      last_confirmed_at = GREATEST(last_confirmed_at, $7), embedding = $8::vector, embedding_model = $9, updated_at = now(),
                      stale = stale AND $7::timestamptz <= last_confirmed_at
                WHERE id = $1`,
              [r.factId, r.factText, r.objectId ? null : r.value, entityId(r.objectId), r.confidence, JSON.stringify([previous]), occurredAt, vectorOrNull(factVectors.get(r.candidateId)), deps.embedder.model],
            );
            factLinks.push({ fact_id: r.factId, relation: 'refined' });
            auditRows.push(auditRow('fact.refined', { type: 'fact', id: r.factId }, before, { fact_text: r.factText, value: r.value, confidence: r.confidence, reason: r.reason }));
          }

          for (const inv of plan.invalidations) {
            const { rowCount } = await tx.query(
              `UPDATE fact SET invalid_at = $2, invalidated_by = $3, expired_at = now(), updated_at = now()
                WHERE id = $1 AND invalid_at IS NULL`,
              [inv.factId, inv.invalidAt, inv.invalidatedBy],
            );
            if (!rowCount) continue; // someone else ended it first
            factLinks.push({ fact_id: inv.factId, relation: 'invalidated' });
            auditRows.push(auditRow('fact.invalidated', { type: 'fact', id: inv.factId }, { invalid_at: null }, { invalid_at: inv.invalidAt, invalidated_by: inv.invalidatedBy }));
          }
          auditRows.push(...(await applyRechains(tx, plan.rechains ?? [], factLinks)));

          const reviewIds: string[] = [];
          for (const [index, rej] of plan.rejections.entries()) {
            const candidate = facts.find((f) => f.id === rej.candidateId)?.candidate;
            auditRows.push(auditRow('fact.rejected', { type: 'fact', id: rej.againstFactId }, null, { reason: rej.reason, candidate_id: rej.candidateId, candidate }));
            const { rows } = await tx.query<{ id: string }>(
              `INSERT INTO review_item (namespace, kind, title, payload, fact_ids, episode_id, dedup_key)
               VALUES ($1, 'rejected_write', $2, $3, $4::uuid[], $5, $6) ON CONFLICT (dedup_key) DO NOTHING RETURNING id`,
              [episode.namespace, `Rejected: ${rej.reason}`, JSON.stringify({ reason: rej.reason, candidate_id: rej.candidateId, candidate }), [rej.againstFactId], episode.id, `${episode.id}:rejected:${index}`],
            );
            reviewIds.push(...rows.map((r) => r.id));
          }
          for (const [index, rev] of plan.reviews.entries()) {
            const { rows } = await tx.query<{ id: string }>(
              `INSERT INTO review_item (namespace, kind, title, payload, fact_ids, episode_id, dedup_key)
               VALUES ($1, 'conflict', $2, $3, $4::uuid[], $5, $6) ON CONFLICT (dedup_key) DO NOTHING RETURNING id`,
              [episode.namespace, `Conflict: ${rev.reason}`, JSON.stringify({ reason: rev.reason }), [rev.againstFactId, rev.candidateId], episode.id, `${episode.id}:conflict:${index}`],
            );
            reviewIds.push(...rows.map((r) => r.id));
            auditRows.push(auditRow('review.opened', { type: 'fact', id: rev.candidateId }, null, { reason: rev.reason, against: rev.againstFactId }));
          }

          const droppedWrites = limited.dropped.entities + limited.dropped.facts + limited.dropped.updates;
          if (droppedWrites > 0) {
            auditRows.push(auditRow('graph.write_limit_exceeded', { type: 'episode', id: episode.id }, null, { limit: writeLimit, dropped: limited.dropped }));
          }
          if (factLinks.length) {
            await tx.query(
              `INSERT INTO fact_episode (fact_id, episode_id, relation)
               SELECT l.fact_id, $1, l.relation FROM jsonb_to_recordset($2::jsonb) AS l(fact_id uuid, relation text) ON CONFLICT DO NOTHING`,
              [episode.id, JSON.stringify(factLinks)],
            );
          }
          // An updated memory: what only its replaced content said stops being current (core/memories/update.ts).
          auditRows.push(...(await settleReplacedContent(tx, episode.id, factLinks)));
          await tx.query(`UPDATE episode SET status = 'extracted', extracted_at = now(), error = NULL, updated_at = now() WHERE id = $1`, [episode.id]);
          auditRows.push(auditRow('episode.extracted', { type: 'episode', id: episode.id }, null, summary));
          await writeAudit(tx, cause, auditRows);
          return { result: { alreadyCommitted: false, ...(await committedIds(tx, episode.id)), droppedWrites }, reviewIds };
        });
        // Review items wait for a person in their own workflow, started once the items are committed.
        if (committed.reviewIds.length) await startReviewWorkflows(deps, committed.reviewIds);
        const output: CommitResult = committed.result;
        return { output };
      });
    },
  };
}
