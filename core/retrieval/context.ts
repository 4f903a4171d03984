import { countTokens } from 'gpt-tokenizer';
import type { Queryable } from '../db/pool.js';
import type { EmbeddingProvider } from '../extraction/types.js';
import { entitiesNamedIn } from './entityMatch.js';
import { memoizeBounded } from './memo.js';
import { queryCompactFacts, type CompactFactView } from './facts.js';
import type { Recipe } from './recipes.js';
import { episodeFilter, type ReadScope } from './scope.js';
import { runSearch } from './search.js';
import { SqlParams } from './sql.js';
import type { SearchResult } from './types.js';
import { userFactCondition } from './userEntity.js';

export interface ContextRequest {
  query?: string;
  maxTokens: number;
  recipe: Recipe;
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
/** Facts may take this share of the budget while there are memories to show; unused room flows both ways. */
const FACT_SHARE = 0.6;
const FACTS_HEADER = 'Known facts (current, most certain first):';
const MEMORIES_HEADER = 'Relevant memories:';

function factLine(f: ContextFact): string {
  return `- ${f.fact_text} (confidence ${f.effective_confidence.toFixed(2)}, ${f.freshness})`;
}

function memoryLine(m: ContextMemory): string {
  const date = m.occurred_at ? `[${m.occurred_at.slice(0, 10)}] ` : '';
  const who = m.speaker ? `${m.speaker}: ` : '';
  return `- ${date}${who}${m.text}`;
}

function render(facts: ContextFact[], memories: ContextMemory[]): string {
  const parts: string[] = [];
  if (facts.length) parts.push([FACTS_HEADER, ...facts.map(factLine)].join('\n'));
  if (memories.length) parts.push([MEMORIES_HEADER, ...memories.map(memoryLine)].join('\n'));
  return parts.join('\n\n');
}

/**
 * Whose facts lead the block: the user's own entity; with a user id but no
 * entity known to stand for them, every fact learnt for that user; without a
 * user id, the entities the query names. Returns a condition on `f`, or null for none.
 */
async function subjectCondition(db: Queryable, scope: ReadScope, query: string | undefined): Promise<((p: SqlParams) => string) | null> {
  const { userId } = scope;
  if (userId !== undefined) return (p) => userFactCondition(p, { ...scope, userId });
  if (!query) return null;
  const ids = (await entitiesNamedIn(db, scope, query, 3)).filter((s) => s.score >= 0.9).map((s) => s.id);
  return ids.length ? (p) => `f.subject_id = ANY(${p.add(ids)}::uuid[])` : null;
}

async function recentMemories(db: Queryable, scope: ReadScope): Promise<ContextMemory[]> {
  const p = new SqlParams();
  const { rows } = await db.query<{ id: string; content: string; speaker: string | null; occurred_at: Date }>(
    `SELECT e.id, e.content, e.speaker, e.occurred_at FROM episode e WHERE ${episodeFilter(p, scope)}
     ORDER BY e.occurred_at DESC, e.id DESC LIMIT ${p.add(MAX_MEMORIES)}`,
    p.values,
  );
  return rows.map((r) => ({
    type: 'episode',
    id: r.id,
    text: r.content.length > 500 ? `${r.content.slice(0, 500)}…` : r.content,
    speaker: r.speaker,
    occurred_at: r.occurred_at.toISOString(),
    score: 0,
    matched_by: ['recency'],
    episode_ids: [r.id],
  }));
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
  };
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
 * The prompt-ready context block: the subject's current facts, highest
 * effective confidence first with their freshness, then the memories most
 * relevant to the query (or the most recent ones without a query), cut to
 * `maxTokens` as counted by a real BPE tokenizer (gpt-tokenizer, o200k).
 */
export async function buildContext(
  db: Queryable,
  embedder: EmbeddingProvider,
  scope: ReadScope,
  request: ContextRequest,
): Promise<ContextBlock> {
  const subjects = await subjectCondition(db, scope, request.query);
  const allFacts = subjects ? await queryCompactFacts(db, scope, { where: subjects, order: 'effective', limit: MAX_FACTS }) : [];
  const factIds = new Set(allFacts.map((f) => f.id));
  const allMemories = request.query
    ? (await runSearch(db, embedder, scope, {
        query: request.query,
        k: MAX_MEMORIES,
        kinds: ['episode', 'fact'],
        recipe: request.recipe,
        snippetChars: 500,
      }))
        .filter((r) => !factIds.has(r.id))
        .map(toMemory)
    : await recentMemories(db, scope);

  const max = request.maxTokens;
  // +1 for the joining newline.
  const cost = (line: string) => lineTokenCount(line) + 1;
  const factCost = (f: ContextFact) => cost(factLine(f));
  const memoryCost = (m: ContextMemory) => cost(memoryLine(m));
  const factHeader = countTokens(FACTS_HEADER) + 2;
  const memoryHeader = countTokens(MEMORIES_HEADER) + 2;
  const total = <T>(items: T[], header: number, c: (item: T) => number) => (items.length ? header + items.reduce((sum, i) => sum + c(i), 0) : 0);
  let facts = takeWithin(allFacts, allMemories.length ? Math.floor(max * FACT_SHARE) : max, factCost, factHeader);
  const memories = takeWithin(allMemories, max - total(facts, factHeader, factCost), memoryCost, memoryHeader);
  if (facts.length < allFacts.length) facts = takeWithin(allFacts, max - total(memories, memoryHeader, memoryCost), factCost, factHeader);

  // Token counts of joined lines can differ slightly from the sum of their parts: trim until the real count fits.
  let text = render(facts, memories);
  let tokenCount = countTokens(text);
  while (tokenCount > max && (facts.length || memories.length)) {
    if (memories.length) memories.pop();
    else facts.pop();
    text = render(facts, memories);
    tokenCount = countTokens(text);
  }
  return { text, facts, memories, token_count: tokenCount };
}
