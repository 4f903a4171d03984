import { randomUUID } from 'node:crypto';
import { toVectorSql } from '../core/db/pool.js';
import { nameKey as canonicalKey } from '../core/domain/canonical.js';
import type { EpisodeSnapshot, ResolvedEntity } from '../core/ingest/contracts.js';
import { chunkText } from '../core/extraction/chunk.js';
import { explicitCandidate, explicitEntities, explicitFactOf } from '../core/ingest/explicitFact.js';
import {
  addUsage,
  NO_USAGE,
  type EntityCandidate,
  type EpisodeText,
  type ExistingEntity,
  type FactCandidate,
  type ResolutionItem,
} from '../core/extraction/types.js';
import type { ActivityDeps } from './deps.js';
import { recordStage, type StageRunLog } from './stageRecorder.js';

function episodeText(episode: EpisodeSnapshot, text = episode.content): EpisodeText {
  return { text, speaker: episode.speaker, occurredAt: episode.occurredAt };
}

/** Merges candidates that name the same thing (case-insensitive, alias-aware). */
export function mergeCandidates(candidates: EntityCandidate[]): EntityCandidate[] {
  const merged: EntityCandidate[] = [];
  for (const c of candidates) {
    const keys = new Set([c.name, ...c.aliases].map(canonicalKey));
    const same = merged.find((m) => m.type === c.type && [m.name, ...m.aliases].some((n) => keys.has(canonicalKey(n))));
    if (same) {
      same.aliases = [...new Set([...same.aliases, ...c.aliases, c.name])].filter((a) => canonicalKey(a) !== canonicalKey(same.name));
    } else {
      merged.push({ ...c, aliases: [...c.aliases] });
    }
  }
  return merged;
}

export function createExtractionActivities(deps: ActivityDeps, stageRuns: StageRunLog) {
  const scopeOf = (episode: EpisodeSnapshot) => ({ namespace: episode.namespace, episodeId: episode.id });

  return {
    /** Stage 1: `{name, type}` candidates; long episodes are chunked. */
    async entityExtract(input: { episode: EpisodeSnapshot }): Promise<EntityCandidate[]> {
      const { episode } = input;
      return recordStage(stageRuns, 'entity-extract', scopeOf(episode), { chars: episode.content.length }, async () => {
        const explicit = explicitFactOf(episode.metadata);
        if (explicit) return { output: explicitEntities(explicit) };
        let usage = NO_USAGE;
        const all: EntityCandidate[] = [];
        for (const chunk of chunkText(episode.content)) {
          const result = await deps.extractor.extractEntities(episodeText(episode, chunk));
          usage = addUsage(usage, result.usage);
          all.push(...result.entities);
        }
        return { output: mergeCandidates(all), usage };
      });
    },

    /** Stage 2: nearest existing entities (exact/alias match + pgvector ANN), then one batched judgement. */
    async entityResolve(input: { episode: EpisodeSnapshot; entities: EntityCandidate[] }): Promise<ResolvedEntity[]> {
      const { episode, entities } = input;
      return recordStage(stageRuns, 'entity-resolve', scopeOf(episode), { entities }, async () => {
        if (entities.length === 0) return { output: [] };
        const scopeUser = episode.userId ?? '';
        const vectors = await deps.nameEmbedder.embed(entities.map((e) => e.name));
        // One round trip for every candidate: exact name/alias matches and the nearest names by embedding.
        const { rows } = await deps.pool.query<ExistingEntity & { idx: number; aliases: string[] }>(
          `SELECT c.idx, m.id, m.name, m.type, m.aliases, m.similarity
             FROM jsonb_to_recordset($3::jsonb) AS c(idx int, keys text[], vec text)
            CROSS JOIN LATERAL (
              (SELECT id, name, type, aliases, 1.0::float8 AS similarity FROM entity
                WHERE namespace = $1 AND scope_user = $2 AND merged_into IS NULL AND forgotten_at IS NULL
                  AND (name_key = ANY(c.keys) OR EXISTS (SELECT 1 FROM unnest(aliases) a WHERE lower(a) = ANY(c.keys)))
                LIMIT 5)
              UNION ALL
              (SELECT id, name, type, aliases, 1 - (name_embedding <=> c.vec::vector) AS similarity FROM entity
                WHERE namespace = $1 AND scope_user = $2 AND merged_into IS NULL AND forgotten_at IS NULL
                ORDER BY name_embedding <=> c.vec::vector LIMIT 3)
            ) AS m`,
          [
            episode.namespace,
            scopeUser,
            JSON.stringify(
              entities.map((candidate, idx) => ({
                idx,
                keys: [...new Set([candidate.name, ...candidate.aliases].map(canonicalKey))],
                vec: toVectorSql(vectors[idx]),
              })),
            ),
          ],
        );
        const nearestByIndex = entities.map(() => new Map<string, ExistingEntity>());
        for (const { idx, ...row } of rows) {
          const nearest = nearestByIndex[idx];
          const prev = nearest.get(row.id);
          if (!prev || prev.similarity < row.similarity) nearest.set(row.id, { ...row, similarity: Number(row.similarity) });
        }
        const items: ResolutionItem[] = entities.map((candidate, index) => ({
          index,
          candidate,
          nearest: [...nearestByIndex[index].values()].filter((n) => n.similarity >= 0.5),
        }));
        const judged = items.some((i) => i.nearest.length > 0)
          ? await deps.extractor.judgeEntities(episodeText(episode), items.filter((i) => i.nearest.length > 0))
          : { decisions: [], usage: NO_USAGE };
        const matchOf = new Map(judged.decisions.map((d) => [d.index, d.match_id]));
        const resolved: ResolvedEntity[] = [];
        for (const item of items) {
          const matchId = matchOf.get(item.index) ?? null;
          const existing = matchId ? item.nearest.find((n) => n.id === matchId) : undefined;
          const surface = [item.candidate.name, ...item.candidate.aliases];
          if (existing) {
            const already = resolved.find((r) => r.id === existing.id);
            const aliases = [...new Set([...(already?.aliases ?? existing.aliases), ...surface])].filter(
              (a) => canonicalKey(a) !== canonicalKey(existing.name),
            );
            if (already) already.aliases = aliases;
            else resolved.push({ id: existing.id, isNew: false, name: existing.name, type: existing.type as ResolvedEntity['type'], aliases });
          } else {
            resolved.push({ id: randomUUID(), isNew: true, name: item.candidate.name, type: item.candidate.type, aliases: item.candidate.aliases });
          }
        }
        return { output: resolved, usage: judged.usage };
      });
    },

    /** Stage 3: triples with fact_text, memory kind, importance, confidence, family. */
    async factExtract(input: { episode: EpisodeSnapshot; entities: ResolvedEntity[] }): Promise<FactCandidate[]> {
      const { episode, entities } = input;
      return recordStage(stageRuns, 'fact-extract', scopeOf(episode), { entities: entities.map((e) => e.name) }, async () => {
        const explicit = explicitFactOf(episode.metadata);
        if (explicit) return { output: [explicitCandidate(explicit)] };
        let usage = NO_USAGE;
        const facts: FactCandidate[] = [];
        const refs = entities.map((e) => ({ name: e.name, type: e.type, aliases: e.aliases }));
        for (const chunk of chunkText(episode.content)) {
          const result = await deps.extractor.extractFacts(episodeText(episode, chunk), refs);
          usage = addUsage(usage, result.usage);
          facts.push(...result.facts);
        }
        return { output: facts, usage };
      });
    },
  };
}
