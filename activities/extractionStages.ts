import { randomUUID } from 'node:crypto';
import { nameKey as canonicalKey } from '../core/domain/canonical.js';
import type { EpisodeSnapshot, ResolvedEntity } from '../core/ingest/contracts.js';
import { decideByBaseName } from '../core/entities/baseNameMatch.js';
import { chunkText } from '../core/extraction/chunk.js';
import { extractorFor } from '../core/extraction/index.js';
import { contentTypeOf } from '../core/sources/contentType.js';
import { explicitCandidate, explicitEntities, explicitFactOf } from '../core/ingest/explicitFact.js';
import {
  addUsage,
  NO_USAGE,
  type EntityCandidate,
  type EpisodeText,
  type ExistingEntity,
  type ExtractionProvider,
  type FactCandidate,
  type ResolutionItem,
} from '../core/extraction/types.js';
import type { ActivityDeps } from './deps.js';
import { lookupProseEntities, lookupStructuredEntities } from './entityLookup.js';
import { recordStage, type StageRunLog } from './stageRecorder.js';

function episodeText(episode: EpisodeSnapshot, text = episode.content): EpisodeText {
  return { text, speaker: episode.speaker, occurredAt: episode.occurredAt, timezone: episode.timezone };
}

/** Merges candidates that name the same thing (case-insensitive, alias-aware). */
export function mergeCandidates(candidates: EntityCandidate[]): EntityCandidate[] {
  const merged: EntityCandidate[] = [];
  // type|name key → merged candidate: linear in the candidates (a JSON batch names thousands).
  const byKey = new Map<string, EntityCandidate>();
  for (const c of candidates) {
    const keys = [c.name, ...c.aliases].map(canonicalKey);
    const same = keys.map((k) => byKey.get(`${c.type}|${k}`)).find(Boolean);
    if (same) {
      same.aliases = [...new Set([...same.aliases, ...c.aliases, c.name])].filter((a) => canonicalKey(a) !== canonicalKey(same.name));
    } else {
      merged.push({ ...c, aliases: [...c.aliases] });
    }
    const target = same ?? merged[merged.length - 1];
    for (const k of keys) if (!byKey.has(`${c.type}|${k}`)) byKey.set(`${c.type}|${k}`, target);
  }
  return merged;
}

/** The text a provider reads: chunks of prose, or the whole stored document for a source provider. */
function providerChunks(provider: ExtractionProvider, episode: EpisodeSnapshot): string[] {
  return provider.wholeEpisode ? [episode.content] : chunkText(episode.content);
}

export function createExtractionActivities(deps: ActivityDeps, stageRuns: StageRunLog) {
  const scopeOf = (episode: EpisodeSnapshot) => ({ namespace: episode.namespace, episodeId: episode.id });
  /** The episode's provider: the configured text provider, or the one of its source (email, calendar, json). */
  const providerOf = (episode: EpisodeSnapshot) => extractorFor(contentTypeOf(episode), deps.extractor);

  return {
    /** Stage 1: `{name, type}` candidates; long episodes are chunked. */
    async entityExtract(input: { episode: EpisodeSnapshot }): Promise<EntityCandidate[]> {
      const { episode } = input;
      const provider = providerOf(episode);
      return recordStage(stageRuns, 'entity-extract', scopeOf(episode), { chars: episode.content.length, provider: provider.name }, async () => {
        const explicit = explicitFactOf(episode.metadata);
        if (explicit) return { output: explicitEntities(explicit) };
        let usage = NO_USAGE;
        const all: EntityCandidate[] = [];
        for (const chunk of providerChunks(provider, episode)) {
          const result = await provider.extractEntities(episodeText(episode, chunk));
          usage = addUsage(usage, result.usage);
          all.push(...result.entities);
        }
        return { output: mergeCandidates(all), usage };
      });
    },

    /** Stage 2: nearest existing entities (exact/alias match + pgvector ANN), then one batched judgement. */
    async entityResolve(input: { episode: EpisodeSnapshot; entities: EntityCandidate[] }): Promise<ResolvedEntity[]> {
      const { episode, entities } = input;
      const provider = providerOf(episode);
      return recordStage(stageRuns, 'entity-resolve', scopeOf(episode), { entities, provider: provider.name }, async () => {
        if (entities.length === 0) return { output: [] };
        const scopeUser = episode.userId ?? '';
        // Structured sources resolve exactly: no neighbours by embedding or base name to look up (or embed for).
        const exactOnly = provider.exactResolution === true;
        const scope = { namespace: episode.namespace, scopeUser };
        const rows = exactOnly
          ? await lookupStructuredEntities(deps.pool, scope, entities)
          : await lookupProseEntities(deps.pool, scope, entities, await deps.nameEmbedder.embed(entities.map((e) => e.name)));
        const nearestByIndex = entities.map(() => new Map<string, ExistingEntity>());
        const exactByIndex = entities.map(() => false);
        const baseByIndex = entities.map((): ExistingEntity[] => []);
        for (const { idx, via, ...row } of rows) {
          const entity = { ...row, similarity: Number(row.similarity) };
          if (via === 'base') {
            baseByIndex[idx].push(entity);
            continue;
          }
          if (via === 'exact') exactByIndex[idx] = true;
          const nearest = nearestByIndex[idx];
          const prev = nearest.get(row.id);
          if (!prev || prev.similarity < entity.similarity) nearest.set(row.id, entity);
        }
        const items: ResolutionItem[] = entities.map((candidate, index) => ({
          index,
          candidate,
          nearest: [...nearestByIndex[index].values()].filter((n) => n.similarity >= 0.5),
        }));
        // The suffix rule decides before any judge, for every provider, unless a name or alias matches as it is:
        // one entity sharing the base name is the same thing; several leave a new entity for the merge review.
        const decidedByBase = new Map<number, string | null>();
        for (const item of items) {
          if (exactByIndex[item.index]) continue;
          const decision = decideByBaseName(item.candidate, baseByIndex[item.index]);
          if (decision.kind === 'match') {
            decidedByBase.set(item.index, decision.id);
            item.nearest = [...item.nearest.filter((n) => n.id !== decision.id), ...baseByIndex[item.index].filter((n) => n.id === decision.id).slice(0, 1)];
          } else if (decision.kind === 'ambiguous') {
            decidedByBase.set(item.index, null);
          }
        }
        const toJudge = items.filter((i) => i.nearest.length > 0 && !decidedByBase.has(i.index));
        const judged = toJudge.length ? await provider.judgeEntities(episodeText(episode), toJudge) : { decisions: [], usage: NO_USAGE };
        const matchOf = new Map<number, string | null>([...judged.decisions.map((d): [number, string | null] => [d.index, d.match_id]), ...decidedByBase]);
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
      const provider = providerOf(episode);
      return recordStage(stageRuns, 'fact-extract', scopeOf(episode), { entities: entities.map((e) => e.name), provider: provider.name }, async () => {
        const explicit = explicitFactOf(episode.metadata);
        if (explicit) return { output: [explicitCandidate(explicit)] };
        let usage = NO_USAGE;
        const facts: FactCandidate[] = [];
        const refs = entities.map((e) => ({ name: e.name, type: e.type, aliases: e.aliases }));
        for (const chunk of providerChunks(provider, episode)) {
          const result = await provider.extractFacts(episodeText(episode, chunk), refs);
          usage = addUsage(usage, result.usage);
          facts.push(...result.facts);
        }
        return { output: facts, usage };
      });
    },
  };
}
