import { countTokens } from 'gpt-tokenizer';
import type { Queryable } from '../db/pool.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import { namedEntityIdsSql, topNamedEntityIdsSql } from './entityMatch.js';
import { memoizeBounded } from './memo.js';
import { orderByRelevance } from './factRelevance.js';
import { queryCompactFacts, type CompactFactView, type FactQuery } from './facts.js';
import { hydrateWithStandings } from './hydrate.js';
import { producedFactsColumn, standingsByEpisode, type MemoryStanding, type ProducedFactJson, type SupersededBy } from './memoryStatus.js';
import type { Recipe } from './recipes.js';
import { episodeFilter, referenceTime, type ReadScope } from './scope.js';
import { highlightTerms, nameGrams } from './queryText.js';
import { searchCandidates, type SearchRequest } from './search.js';
import { SqlParams } from './sql.js';
import { saidAt } from './tense.js';
import type { SearchResult } from './types.js';
import { userFactCondition } from './userEntity.js';
import { wordCoverage } from './wordCoverage.js';

export interface ContextRequest {
  query?: string;
  maxTokens: number;
  recipe: Recipe;
  /**
   * Facts whose effective confidence at the read instant is below this are
   * left out, from the facts and the memories (DECAY_FLOOR: what the nightly
   * decay marks stale), so the block does not depend on whether the dream has
   * run since they faded, e.g. right after old memories were imported.
   */
  minConfidence?: number;
}

export type ContextFact = CompactFactView;

export interface ContextMemory {
  type: 'episode' | 'fact';
  id: string;
  text: string;
  speaker: string | null;
  occurred_at: string | null;
  score: number;
  matched_by: string[];
  episode_ids: string[];
  /**
   * `superseded`: every fact this memory stated has since been replaced; `partly_superseded`: some have, others
   * still hold; `current` otherwise (or when it stated none).
   */
  status: 'current' | 'partly_superseded' | 'superseded';
  /** For a (partly) superseded memory: what replaced the latest of its statements to end, and when. */
  superseded_by: SupersededBy | null;
}

export interface ContextBlock {
  text: string;
  facts: ContextFact[];
  memories: ContextMemory[];
  token_count: number;
}

/**
 * Token counts of rendered lines, shared across requests: the same memories and
 * facts come back turn after turn, and BPE counting was the costliest CPU step
 * of a context request.
 */
const lineTokenCount = memoizeBounded((line) => countTokens(line), 50_000);

const MAX_FACTS = 60;
const MAX_MEMORIES = 15;
/** Characters of a memory's text a block shows, as the recent memories are cut too. */
const MEMORY_SNIPPET_CHARS = 500;
/** Facts may take this share of the budget while there are memories to show; unused room flows both ways. */
const FACT_SHARE = 0.6;
const FACTS_HEADER = 'Known facts (current, most certain first):';
const FACTS_HEADER_FOR_QUERY = 'Known facts (current, most relevant first):';
/**
 * A memory whose content words the listed facts from it already say to this
 * share adds nothing ("Stefan left Premex and now works at Acme." beside
 * "Stefan left Premex." and "Stefan works at Acme."); what is left over is
 * function words the stop list missed.
 */
const REDUNDANT_COVERAGE = 0.8;
const MEMORIES_HEADER = 'Relevant memories:';

function factLine(f: ContextFact): string {
  return `- ${f.fact_text} (confidence ${f.effective_confidence.toFixed(2)}, ${f.freshness})`;
}

function statusMarker(m: ContextMemory): string {
  if (!m.superseded_by) return '';
  const now = m.superseded_by.fact_text ? `: now ${m.superseded_by.fact_text}` : '';
  const partly = m.status === 'partly_superseded' ? 'partly ' : '';
  return ` (${partly}superseded ${m.superseded_by.at.slice(0, 10)}${now})`;
}

function memoryLine(m: ContextMemory): string {
  const date = m.occurred_at ? `[${m.occurred_at.slice(0, 10)}] ` : '';
  const who = m.speaker ? `${m.speaker}: ` : '';
  return `- ${date}${who}${m.text}${statusMarker(m)}`;
}

/** The block's sections, each a header and its lines. */
function sections(facts: ContextFact[], memories: ContextMemory[], factsHeader: string): string[][] {
  const parts: string[][] = [];
  if (facts.length) parts.push([factsHeader, ...facts.map(factLine)]);
  if (memories.length) parts.push([MEMORIES_HEADER, ...memories.map(memoryLine)]);
  return parts;
}

function render(parts: string[][]): string {
  return parts.map((lines) => lines.join('\n')).join('\n\n');
}

/**
 * The rendered block's exact token count, summed from the memoized counts of
 * its lines, each with the newline(s) that follow it. The o200k pre-tokenizer
 * never joins a newline to a following character that is not whitespace, and
 * every line starts with "-" or a header word, so the block's tokens are its
 * lines' tokens in a row (test/context-token-count.test.ts checks the sum
 * against counting the whole text). Tokenizing the whole block again took
 * 0.28 ms for 1,000 tokens on every request, about 6 % of the API's CPU for a
 * context block.
 */
export function renderedTokenCount(parts: string[][]): number {
  let count = 0;
  parts.forEach((lines, i) => {
    const sectionEnd = i < parts.length - 1 ? '\n\n' : '';
    lines.forEach((line, j) => {
      count += lineTokenCount(line + (j < lines.length - 1 ? '\n' : sectionEnd));
    });
  });
  return count;
}

/**
 * Whose facts the block lists: with a user id, the user's own entity's (every
 * fact learnt for the user when no entity is known to stand for them) and those
 * of the entities the query names in the user's scope, which lead ("where does
 * Lena live?" asked for Sam: his sister's home); without a user id, the
 * three entities the query names most strongly, exactly or by an alias (a
 * typo's near match is left to the search below). Null for none.
 */
function subjectCondition(scope: ReadScope, query: string | undefined): Pick<FactQuery, 'where' | 'lead'> | null {
  const { userId } = scope;
  const grams = query ? nameGrams(query) : null;
  const namesSome = !!grams?.keys.length;
  if (userId !== undefined) {
    const own = (p: SqlParams) => userFactCondition(p, { ...scope, userId });
    if (!namesSome) return { where: own };
    return {
      where: (p) => `(${own(p)} OR f.subject_id IN (${namedEntityIdsSql(p, scope, grams)}))`,
      lead: (p) => `f.subject_id IN (${namedEntityIdsSql(p, scope, grams)})`,
    };
  }
  if (!namesSome) return null;
  // The three entities named most strongly, looked up inside the facts statement: one round trip fewer.
  return { where: (p) => `f.subject_id IN (${topNamedEntityIdsSql(p, scope, grams, 3)})` };
}

/** Memories with, for each episode among them that produced facts, where its statements stand. */
interface FoundMemories {
  memories: ContextMemory[];
  standings: Map<string, MemoryStanding>;
}

async function recentMemories(db: Queryable, scope: ReadScope): Promise<FoundMemories> {
  const p = new SqlParams();
  const { rows } = await db.query<{ id: string; content: string; speaker: string | null; occurred_at: Date; produced: ProducedFactJson[] | null }>(
    `SELECT e.id, e.content, e.speaker, e.occurred_at, ${producedFactsColumn(p, scope, 'e')} AS produced FROM episode e WHERE ${episodeFilter(p, scope)}
     ORDER BY e.occurred_at DESC, e.id DESC LIMIT ${p.add(MAX_MEMORIES)}`,
    p.values,
  );
  const memories = rows.map((r): ContextMemory => ({
    type: 'episode',
    id: r.id,
    text: r.content.length > MEMORY_SNIPPET_CHARS ? `${r.content.slice(0, MEMORY_SNIPPET_CHARS)}…` : r.content,
    speaker: r.speaker,
    occurred_at: r.occurred_at.toISOString(),
    score: 0,
    matched_by: ['recency'],
    episode_ids: [r.id],
    status: 'current',
    superseded_by: null,
  }));
  return { memories, standings: standingsByEpisode(scope, rows) };
}

/** The memories most relevant to the query (hybrid search over episodes and facts), but the facts the block lists. */
async function relevantMemories(db: Queryable, embedder: EmbeddingProvider, scope: ReadScope, query: string, recipe: Recipe, listedFactIds: Set<string>): Promise<FoundMemories> {
  const request: SearchRequest = { query, k: MAX_MEMORIES, kinds: ['episode', 'fact'], recipe, snippetChars: MEMORY_SNIPPET_CHARS };
  const top = await searchCandidates(db, embedder, scope, request);
  const { results, standings } = await hydrateWithStandings(db, scope, top, highlightTerms(query), MEMORY_SNIPPET_CHARS);
  return { memories: results.slice(0, MAX_MEMORIES).filter((r) => !listedFactIds.has(r.id)).map(toMemory), standings };
}

function toMemory(r: SearchResult): ContextMemory {
  return {
    type: r.type === 'fact' ? 'fact' : 'episode',
    id: r.id,
    text: r.snippet,
    speaker: r.speaker ?? null,
    occurred_at: r.occurred_at,
    score: r.score,
    matched_by: r.matched_by,
    episode_ids: r.episode_ids,
    status: 'current',
    superseded_by: null,
  };
}

/**
 * Marks the episodes whose statements have all, or partly, been superseded,
 * and drops the ones that only repeat listed facts. A superseded memory is kept with its
 * status on its line rather than left out: it is the only trace of what held
 * before ("where did Stefan work before Acme?"), and the marker is what stops
 * an agent from reading it as current. Search hits of kind `fact` are current
 * facts by construction (the search's fact filter) and stay as they are.
 */
function annotate(memories: ContextMemory[], standings: Map<string, MemoryStanding>, listed: ContextFact[]): ContextMemory[] {
  const listedText = new Map(listed.map((f) => [f.id, f.fact_text]));
  return memories.flatMap((m) => {
    const standing = m.type === 'episode' ? standings.get(m.id) : undefined;
    if (!standing) return [m];
    const { superseded, currentFactIds } = standing;
    if (superseded && !currentFactIds.size) return [{ ...m, status: 'superseded' as const, superseded_by: superseded }];
    const saidByListed = [...currentFactIds].flatMap((id) => listedText.get(id) ?? []);
    if (saidByListed.length && wordCoverage(m.text, saidByListed) >= REDUNDANT_COVERAGE) return [];
    return [superseded ? { ...m, status: 'partly_superseded' as const, superseded_by: superseded } : m];
  });
}

/**
 * Leaves out a fact found by the search whose own memory is listed too and
 * already says it ("Ana lives in Oslo." under "Sam: My sister Ana lives in
 * Oslo."): the line would cost tokens and tell nothing new. Only under a
 * current memory: one marked superseded is no source of what holds now.
 */
function withoutFactsTheirMemoriesSay(memories: ContextMemory[]): ContextMemory[] {
  const said = new Map(memories.filter((m) => m.type === 'episode' && m.status === 'current').map((m) => [m.id, m.text]));
  return memories.filter((m) => {
    if (m.type !== 'fact') return true;
    const sources = m.episode_ids.flatMap((id) => said.get(id) ?? []);
    return !sources.length || wordCoverage(m.text, sources) < REDUNDANT_COVERAGE;
  });
}

/** Takes items in order while the rendered block stays within `budget` tokens. */
function takeWithin<T>(items: T[], budget: number, cost: (item: T) => number, header: number): T[] {
  const taken: T[] = [];
  let used = items.length ? header : 0;
  for (const item of items) {
    const c = cost(item);
    if (used + c > budget) break;
    taken.push(item);
    used += c;
  }
  return taken;
}

/**
 * The prompt-ready context block: the subject's current facts with their
 * freshness (with a query, those answering it first, states before the
 * transitions that explain them; then highest effective confidence), then the
 * memories most relevant to the query (or the most recent ones without a
 * query), superseded ones marked and those that only repeat a listed fact
 * left out, cut to `maxTokens` as counted by a real BPE tokenizer
 * (gpt-tokenizer, o200k).
 */
export async function buildContext(
  db: Queryable,
  embedder: EmbeddingProvider,
  readScope: ReadScope,
  request: ContextRequest,
): Promise<ContextBlock> {
  const scope = request.minConfidence === undefined ? readScope : { ...readScope, minConfidence: request.minConfidence };
  const subjects = subjectCondition(scope, request.query);
  const byConfidence = subjects ? await queryCompactFacts(db, scope, { ...subjects, order: 'effective', limit: MAX_FACTS }) : [];
  const allFacts = await saidAt(request.query ? orderByRelevance(byConfidence, request.query) : byConfidence, referenceTime(scope));
  const factsHeader = request.query ? FACTS_HEADER_FOR_QUERY : FACTS_HEADER;
  const factIds = new Set(allFacts.map((f) => f.id));
  const { memories: found, standings } = request.query
    ? await relevantMemories(db, embedder, scope, request.query, request.recipe, factIds)
    : await recentMemories(db, scope);
  const max = request.maxTokens;
  // +1 for the joining newline.
  const cost = (line: string) => lineTokenCount(line) + 1;
  const factCost = (f: ContextFact) => cost(factLine(f));
  const memoryCost = (m: ContextMemory) => cost(memoryLine(m));
  const factHeader = countTokens(factsHeader) + 2;
  const memoryHeader = countTokens(MEMORIES_HEADER) + 2;
  const total = <T>(items: T[], header: number, c: (item: T) => number) => (items.length ? header + items.reduce((sum, i) => sum + c(i), 0) : 0);
  let facts = takeWithin(allFacts, found.length ? Math.floor(max * FACT_SHARE) : max, factCost, factHeader);
  // Redundancy is judged against the facts the block will show, so a memory is never dropped for a fact the budget cut.
  const allMemories = withoutFactsTheirMemoriesSay(annotate(found, standings, facts));
  const memories = takeWithin(allMemories, max - total(facts, factHeader, factCost), memoryCost, memoryHeader);
  if (facts.length < allFacts.length) facts = takeWithin(allFacts, max - total(memories, memoryHeader, memoryCost), factCost, factHeader);

  // Token counts of joined lines can differ slightly from the sum of their parts: trim until the real count fits.
  let parts = sections(facts, memories, factsHeader);
  let tokenCount = renderedTokenCount(parts);
  while (tokenCount > max && (facts.length || memories.length)) {
    if (memories.length) memories.pop();
    else facts.pop();
    parts = sections(facts, memories, factsHeader);
    tokenCount = renderedTokenCount(parts);
  }
  return { text: render(parts), facts, memories, token_count: tokenCount };
}
