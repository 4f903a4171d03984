import type { Queryable } from '../db/pool.js';
import type { EntityType } from '../domain/types.js';
import { byFusedScore, type Fused } from './fusion.js';
import type { Recipe } from './recipes.js';
import { episodeFilter, type ReadScope } from './scope.js';
import { SqlParams } from './sql.js';

/** Fused candidates looked at: whose speaker and answer type are checked. */
export const CONVERSATION_CANDIDATES = 100;
/** Fusion's best candidates, whose neighbouring turns are lifted (measured on REALTALK: 20–100 differ by noise only). */
export const NEIGHBOUR_SOURCES = 30;
/** Turns further apart than this are not the same exchange. */
const NEIGHBOUR_GAP_MINUTES = 60;

export interface EpisodeLinks {
  /** Said by a person the query names. */
  namedSpeaker: boolean;
  /** Mentions an entity of a type the query's answer is expected to be (core/retrieval/answerType.ts). */
  answerTyped: boolean;
  /** The turns just before and after it in the same conversation (namespace, user, agent and run). */
  previous: string | null;
  next: string | null;
}

export interface ConversationLinks {
  episodes: Map<string, EpisodeLinks>;
  /** Episodes each candidate fact was extracted from. */
  factEpisodes: Map<string, string[]>;
  /** Candidate facts whose object is an entity of an expected answer type. */
  answerTypedFacts: Set<string>;
  /** Those of `answerTypedFacts` whose subject is one of the query's `subjectIds`: direct answers. */
  namedSubjectFacts: Set<string>;
}

/** What the query says about the answer, for the candidates' flags. */
export interface LinkQuery {
  /** People the query names, lower-cased like the graph signal matches speakers. */
  speakerNames: string[];
  /** Entity types the answer is expected to be; empty to skip. */
  answerTypes: EntityType[];
  /** Entities the query names: "Who does Emi meet?" is not answered by a turn that mentions Emi. */
  namedEntityIds: string[];
  /** Entities whose facts the question is about ("Where does Ana work?": Ana's), for direct answers; empty to skip. */
  subjectIds: string[];
}

interface LinkRow {
  kind: 'episode' | 'fact';
  id: string;
  /** An episode said by a person the query names; a fact whose subject the query names. */
  named_speaker: boolean;
  answer_typed: boolean;
  previous: string | null;
  next: string | null;
  fact_ids: string[];
}

/**
 * One statement: for candidate episodes, whether a person named in the query
 * said them and whether they mention an entity of an expected answer type
 * that the query does not name; for candidate facts, whether their object is
 * such an entity and, if so, whether their subject is one the query names; for the
 * sources (episodes, and the episodes source facts came from), also the turns
 * just before and after them in the same conversation, at most
 * NEIGHBOUR_GAP_MINUTES away, that the scope can see.
 */
export async function loadConversationLinks(
  db: Queryable,
  scope: ReadScope,
  candidates: ConversationCandidates,
  query: LinkQuery,
): Promise<ConversationLinks> {
  const links: ConversationLinks = { episodes: new Map(), factEpisodes: new Map(), answerTypedFacts: new Set(), namedSubjectFacts: new Set() };
  const { episodeIds, sourceEpisodeIds, sourceFactIds, factIds } = candidates;
  if (!episodeIds.length && !sourceEpisodeIds.length && !sourceFactIds.length && !factIds.length) return links;
  const p = new SqlParams();
  // An entity of an expected type that the query does not name itself (and the scope can see).
  const answerEntity = query.answerTypes.length
    ? `en.type = ANY(${p.add(query.answerTypes)}::text[]) AND en.id <> ALL(${p.add(query.namedEntityIds)}::uuid[])${scope.includeForgotten ? '' : ' AND en.forgotten_at IS NULL'}`
    : null;
  const answerTyped = answerEntity
    ? `EXISTS (SELECT 1 FROM entity_episode ee JOIN entity en ON en.id = ee.entity_id WHERE ee.episode_id = e.id AND ${answerEntity})`
    : 'false';
  // Typed facts ride in the same statement as rows of their own (kind 'fact'): one round trip per search.
  // Parameters are added only where the statement uses them (an unused one has no type to infer).
  const namedSubject = () => (query.subjectIds.length ? `f.subject_id = ANY(${p.add(query.subjectIds)}::uuid[])` : 'false');
  const typedFacts = answerEntity
    ? `UNION ALL SELECT 'fact', f.id, ${namedSubject()}, true, NULL, NULL, '{}' FROM fact f JOIN entity en ON en.id = f.object_id
       WHERE f.id = ANY(${p.add(factIds)}::uuid[]) AND ${answerEntity}`
    : '';
  const gap = `${p.add(NEIGHBOUR_GAP_MINUTES)} * interval '1 minute'`;
  // The scope's user, agent and run follow from the candidate's own (it is in scope), so they are not
  // repeated: a constant user_id would lead the planner to the user's index and a scan of all their turns.
  const sameConversation = [
    `n.namespace = e.namespace`,
    `coalesce(n.user_id, '') = coalesce(e.user_id, '')`,
    `n.agent_id IS NOT DISTINCT FROM e.agent_id`,
    `n.run_id IS NOT DISTINCT FROM e.run_id`,
    ...(scope.includeForgotten ? [] : ['n.forgotten_at IS NULL']),
    ...(scope.asOf ? [`n.occurred_at <= ${p.add(scope.asOf)}::timestamptz`] : []),
  ].join(' AND ');
  const neighbour = (before: boolean) => `(SELECT n.id FROM episode n WHERE ${sameConversation}
      AND (n.occurred_at, n.id) ${before ? '<' : '>'} (e.occurred_at, e.id)
      AND n.occurred_at ${before ? '>=' : '<='} e.occurred_at ${before ? '-' : '+'} ${gap}
      ORDER BY n.occurred_at ${before ? 'DESC' : 'ASC'}, n.id ${before ? 'DESC' : 'ASC'} LIMIT 1)`;
  // Neighbours are looked up for the sources only (CASE skips the subqueries for the rest).
  const { rows } = await db.query<LinkRow>(
    `WITH from_facts AS (SELECT fe.episode_id, array_agg(fe.fact_id) AS fact_ids FROM fact_episode fe
        WHERE fe.fact_id = ANY(${p.add(candidates.sourceFactIds)}::uuid[]) GROUP BY fe.episode_id),
      sources AS (SELECT unnest(${p.add(candidates.sourceEpisodeIds)}::uuid[]) AS id UNION SELECT episode_id FROM from_facts),
      wanted AS (SELECT ids.id, coalesce(ff.fact_ids, '{}') AS fact_ids, ids.id IN (SELECT id FROM sources) AS source
        FROM (SELECT unnest(${p.add(candidates.episodeIds)}::uuid[]) AS id UNION SELECT id FROM sources) ids
        LEFT JOIN from_facts ff ON ff.episode_id = ids.id)
     SELECT 'episode' AS kind, e.id, coalesce(lower(e.speaker) = ANY(${p.add(query.speakerNames)}::text[]), false) AS named_speaker,
       ${answerTyped} AS answer_typed,
       CASE WHEN w.source THEN ${neighbour(true)} END AS previous, CASE WHEN w.source THEN ${neighbour(false)} END AS next, w.fact_ids
     FROM wanted w JOIN episode e ON e.id = w.id WHERE ${episodeFilter(p, scope)}
     ${typedFacts}`,
    p.values,
  );
  for (const row of rows) {
    if (row.kind === 'fact') {
      links.answerTypedFacts.add(row.id);
      if (row.named_speaker) links.namedSubjectFacts.add(row.id);
      continue;
    }
    links.episodes.set(row.id, { namedSpeaker: row.named_speaker, answerTyped: row.answer_typed, previous: row.previous, next: row.next });
    for (const factId of row.fact_ids) {
      const episodes = links.factEpisodes.get(factId);
      if (episodes) episodes.push(row.id);
      else links.factEpisodes.set(factId, [row.id]);
    }
  }
  return links;
}

export interface ConversationCandidates {
  /** Episodes whose speaker and answer type are checked. */
  episodeIds: string[];
  /** Facts whose answer type is checked. */
  factIds: string[];
  /** Episodes and facts whose neighbouring turns are lifted (the facts' through the episodes they came from). */
  sourceEpisodeIds: string[];
  sourceFactIds: string[];
}

const idsOf = (items: Fused[], kind: Fused['kind']) => items.filter((f) => f.kind === kind).map((f) => f.id);

/**
 * What `loadConversationLinks` needs for a fused list and query: the top
 * CONVERSATION_CANDIDATES when the query names speakers or expects an answer
 * type, and the top NEIGHBOUR_SOURCES as sources when neighbours are lifted.
 */
export function conversationCandidates(fused: Fused[], query: LinkQuery, neighbours: boolean): ConversationCandidates {
  const sources = neighbours ? fused.slice(0, NEIGHBOUR_SOURCES) : [];
  const top = fused.slice(0, CONVERSATION_CANDIDATES);
  const typed = query.answerTypes.length > 0;
  return {
    episodeIds: query.speakerNames.length > 0 || typed ? idsOf(top, 'episode') : [],
    factIds: typed ? idsOf(top, 'fact') : [],
    sourceEpisodeIds: idsOf(sources, 'episode'),
    sourceFactIds: idsOf(sources, 'fact'),
  };
}

/**
 * Conversation-aware re-ranking after fusion, for memories that are turns of a
 * conversation:
 * - a turn said by a person the query names scores `1 + speaker_boost` times
 *   as much (a speaker's "I" is the person: "What does Kevin cook?" is
 *   answered by what Kevin said);
 * - a turn that mentions, or a fact whose object is, an entity of the type the
 *   question asks for ("Where…", "What countries…": a place) scores
 *   `1 + answer_type_boost` times as much;
 * - such a fact whose subject is an entity the query names answers it
 *   directly and scores `1 + direct_answer_boost` times more again: "Where
 *   does Ana work?" is answered by "Ana works at Globex", which otherwise
 *   ranked below Ana's own turn "Carla works at Initech" (said by Ana and
 *   naming a company, it had both the speaker and the answer-type boost);
 * - the turns just before and after the best candidates (an episode, or the
 *   episodes a fact came from) gain `neighbour_weight` times its score,
 *   because a turn often only makes sense with its neighbour: the question
 *   it answers, or the "Probably eggs" after "What's for breakfast?".
 * A turn that enters only as a neighbour has no matching signal of its own
 * (`matchedBy` empty). Pure: the links come from `loadConversationLinks`.
 */
export function rerankByConversation(
  fused: Fused[],
  links: ConversationLinks,
  recipe: Pick<Recipe, 'neighbour_weight' | 'speaker_boost' | 'answer_type_boost' | 'direct_answer_boost'>,
): Fused[] {
  const boostOf = (f: Fused): number => {
    if (f.kind === 'fact') {
      if (!links.answerTypedFacts.has(f.id)) return 1;
      return (1 + recipe.answer_type_boost) * (links.namedSubjectFacts.has(f.id) ? 1 + recipe.direct_answer_boost : 1);
    }
    const own = f.kind === 'episode' ? links.episodes.get(f.id) : undefined;
    return (own?.namedSpeaker ? 1 + recipe.speaker_boost : 1) * (own?.answerTyped ? 1 + recipe.answer_type_boost : 1);
  };
  const boosted = fused.map((f, rank) => (rank < CONVERSATION_CANDIDATES ? { ...f, score: f.score * boostOf(f) } : { ...f }));
  // Sources are the best candidates of fusion itself, so their links can be loaded before re-ranking.
  const sources = boosted.slice(0, NEIGHBOUR_SOURCES);
  const ranked = [...boosted].sort(byFusedScore);
  if (!(recipe.neighbour_weight > 0)) return ranked;

  const sourceScores = new Map<string, number>();
  for (const f of sources) if (f.kind === 'episode') sourceScores.set(f.id, f.score);
  for (const f of sources) {
    if (f.kind !== 'fact') continue;
    for (const episodeId of links.factEpisodes.get(f.id) ?? []) sourceScores.set(episodeId, Math.max(sourceScores.get(episodeId) ?? 0, f.score));
  }
  const lift = new Map<string, number>();
  for (const [episodeId, score] of sourceScores) {
    const own = links.episodes.get(episodeId);
    for (const neighbour of [own?.previous, own?.next]) {
      if (neighbour) lift.set(neighbour, (lift.get(neighbour) ?? 0) + recipe.neighbour_weight * score);
    }
  }
  const byEpisode = new Map(ranked.filter((f) => f.kind === 'episode').map((f) => [f.id, f]));
  for (const [episodeId, extra] of lift) {
    const existing = byEpisode.get(episodeId);
    if (existing) existing.score += extra;
    else ranked.push({ kind: 'episode', id: episodeId, score: extra, matchedBy: [] });
  }
  return ranked.sort(byFusedScore);
}
