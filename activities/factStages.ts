import { randomUUID } from 'node:crypto';
import { fromVectorSql } from '../core/db/pool.js';
import { predicateSpec } from '../core/domain/predicates.js';
import { classifySensitivity } from '../core/domain/sensitivity.js';
import { resolveFactTimes } from '../core/domain/temporal.js';
import { anchorTimeInText } from '../core/domain/timeText.js';
import { sensitivitySchema, type Sensitivity } from '../core/domain/types.js';
import { cosine } from '../core/embedding/hashing.js';
import type { FactCandidate } from '../core/extraction/types.js';
import { planWrites } from '../core/ingest/contradiction.js';
import type { BoundFact, EpisodeSnapshot, ResolvedEntity, TimedFact, WritePlan } from '../core/ingest/contracts.js';
import { candidateKey, classifyCandidate } from '../core/ingest/dedup.js';
import { nameKey as canonicalKey } from '../core/domain/canonical.js';
import { explicitFactOf } from '../core/ingest/explicitFact.js';
import { statedValidityOf } from '../core/sources/document.js';
import { matchStatedWindows } from './statedWindows.js';
import type { ActivityDeps } from './deps.js';
import { ACTIVE_FACT, EXISTING_FACT_COLUMNS, loadChains, toRef, type ExistingRow } from './existingFacts.js';
import { recordStage, type StageRunLog } from './stageRecorder.js';

/** Explicit override from the episode's metadata (`metadata.sensitivity`), else the keyword classifier. */
function sensitivityFor(episode: EpisodeSnapshot, candidate: FactCandidate): Sensitivity {
  const override = sensitivitySchema.safeParse(episode.metadata?.sensitivity);
  return override.success ? override.data : classifySensitivity(candidate.fact_text, candidate.family);
}

/** Binds candidate names to the episode's resolved entity ids; unknown names are dropped. */
export function bindFacts(episode: EpisodeSnapshot, entities: ResolvedEntity[], facts: FactCandidate[]): Omit<BoundFact, 'decision'>[] {
  const byKey = new Map<string, ResolvedEntity>();
  for (const e of entities) for (const n of [e.name, ...e.aliases]) if (!byKey.has(canonicalKey(n))) byKey.set(canonicalKey(n), e);
  const bound: Omit<BoundFact, 'decision'>[] = [];
  const seen = new Set<string>();
  for (const candidate of facts) {
    const subject = byKey.get(canonicalKey(candidate.subject));
    const object = candidate.object ? byKey.get(canonicalKey(candidate.object)) : undefined;
    if (!subject) continue;
    if (candidate.object && !object && !candidate.value) continue;
    const spec = predicateSpec(candidate.predicate, candidate.family);
    const fact = {
      id: randomUUID(),
      candidate: object ? candidate : { ...candidate, object: null, value: candidate.value ?? candidate.object },
      subjectId: subject.id,
      objectId: object?.id ?? null,
      decayClass: spec.decayClass,
      sensitivity: sensitivityFor(episode, candidate),
      singleValued: spec.singleValued,
    };
    const key = candidateKey(fact);
    if (seen.has(key)) continue;
    seen.add(key);
    bound.push(fact);
  }
  return bound;
}

export function createFactActivities(deps: ActivityDeps, stageRuns: StageRunLog) {
  const scopeOf = (episode: EpisodeSnapshot) => ({ namespace: episode.namespace, episodeId: episode.id });

  return {
    /** Stage 4: compares each candidate with active facts on the same subject / entity pair. */
    async factDedup(input: { episode: EpisodeSnapshot; entities: ResolvedEntity[]; facts: FactCandidate[] }): Promise<BoundFact[]> {
      const { episode } = input;
      return recordStage(stageRuns, 'fact-dedup', scopeOf(episode), { facts: input.facts.length }, async () => {
        const bound = bindFacts(episode, input.entities, input.facts);
        const subjectIds = [...new Set(bound.map((f) => f.subjectId))];
        const existingIds = new Set(input.entities.filter((e) => !e.isNew).map((e) => e.id));
        if (bound.length === 0 || !subjectIds.some((id) => existingIds.has(id))) {
          return { output: bound.map((f) => ({ ...f, decision: { kind: 'new' as const } })) };
        }
        const { rows } = await deps.pool.query<ExistingRow>(
          `SELECT ${EXISTING_FACT_COLUMNS}, embedding::text AS embedding
             FROM fact
            WHERE namespace = $1 AND subject_id = ANY($2::uuid[]) AND ${ACTIVE_FACT}
              AND (predicate = ANY($3) OR object_id = ANY($4::uuid[]))
            LIMIT ${Math.max(500, 2 * bound.length)}`,
          [episode.namespace, subjectIds, [...new Set(bound.map((f) => f.candidate.predicate))], bound.map((f) => f.objectId).filter(Boolean)],
        );
        const existing = rows.map(toRef);
        // classifyCandidate compares a candidate only with facts on its own subject: group them (a bulk batch has thousands).
        const existingBySubject = new Map<string, typeof existing>();
        for (const e of existing) {
          const list = existingBySubject.get(e.subjectId);
          if (list) list.push(e);
          else existingBySubject.set(e.subjectId, [e]);
        }
        const existingVectors = new Map(rows.map((r) => [r.id, r.embedding ? fromVectorSql(r.embedding) : null]));
        const vectors = existing.length ? await deps.embedder.embed(bound.map((f) => f.candidate.fact_text)) : [];
        const output = bound.map((f, i) => {
          const similarity = (factId: string) => {
            const v = existingVectors.get(factId);
            return v && vectors[i] ? cosine(vectors[i], v) : 0;
          };
          return { ...f, decision: classifyCandidate(f, existingBySubject.get(f.subjectId) ?? [], similarity) };
        });
        return { output: await matchStatedWindows(deps.pool, episode.namespace, output) };
      });
    },

    /** Stage 5: valid_from / invalid_at from the text, relative to occurred_at in the writer's time zone (t_valid_override wins); the fact's text then names that time absolutely. */
    async temporalResolve(input: { episode: EpisodeSnapshot; facts: BoundFact[] }): Promise<TimedFact[]> {
      const { episode } = input;
      const explicit = explicitFactOf(episode.metadata);
      return recordStage(stageRuns, 'temporal', scopeOf(episode), { facts: input.facts.length, override: episode.tValidOverride }, async () => {
        const output = input.facts.map((f) => {
          const times = resolveFactTimes(f.candidate, episode.occurredAt, episode.tValidOverride, episode.timezone);
          // A structured source's own times (an event's start and end, a triple's valid_from) are taken as stated.
          const stated = statedValidityOf(f.candidate);
          // The fact is read long after: "last month" in its text becomes the month it meant.
          const anchored = (text: string) => anchorTimeInText(text, f.candidate.time_expression, episode.occurredAt, episode.timezone);
          const { fact_text, held_text } = f.candidate;
          const candidate = stated ? f.candidate : { ...f.candidate, fact_text: anchored(fact_text), held_text: held_text && anchored(held_text) };
          return { ...f, candidate, validFrom: stated?.valid_from ?? times.valid_from, invalidAt: explicit?.invalid_at ?? stated?.invalid_at ?? times.invalid_at };
        });
        return { output };
      });
    },

    /** Stage 6: places the episode's single-valued statements in their slots' world-time chains → the write plan. */
    async contradiction(input: { episode: EpisodeSnapshot; facts: TimedFact[] }): Promise<WritePlan> {
      const { episode, facts } = input;
      return recordStage(stageRuns, 'contradiction', scopeOf(episode), { facts: facts.length }, async () => {
        const chains = await loadChains(deps.pool, episode.namespace, facts);
        return { output: planWrites(facts, chains, episode.occurredAt) };
      });
    },
  };
}
