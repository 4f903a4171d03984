import type { SearchResult } from '../../core/retrieval/types.js';
import type { Ingested } from './recallIngest.js';
import { namespaceFor, type RecallConversation } from './recallData.js';

export type SearchFn = (namespace: string, query: string) => Promise<SearchResult[]>;

export interface RecallSummary {
  questions: number;
  overall: Record<string, number>;
  by_category: Record<string, { questions: number; recall: Record<string, number> }>;
}

/** {conversation_key: {question_index: [dia_id, ...best first]}} */
export type Rankings = Record<string, Record<string, string[]>>;

export interface DatasetCoverage {
  questions: number;
  /** Questions with no evidence id that names a turn: left out of every score. */
  skipped_questions: number;
  evidence_ids: number;
  /** Evidence ids naming no turn of the conversation: skipped. */
  skipped_evidence_ids: number;
}

/** Distinct dia_ids in result order: a fact or entity result stands for the turns it was extracted from. */
export function rankDiaIds(results: SearchResult[], ingested: Ingested, limit: number): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const r of results) {
    for (const episodeId of r.episode_ids) {
      const dia = ingested.turnOf.get(episodeId)?.diaId;
      if (dia && !seen.has(dia)) {
        seen.add(dia);
        out.push(dia);
        if (out.length >= limit) return out;
      }
    }
  }
  return out;
}

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

export function coverage(conversations: RecallConversation[]): DatasetCoverage {
  let questions = 0;
  let skippedQuestions = 0;
  let evidence = 0;
  let skippedEvidence = 0;
  for (const c of conversations) {
    const ids = new Set(c.turns.map((t) => t.diaId));
    for (const q of c.questions) {
      questions++;
      evidence += q.evidence.length;
      const valid = q.evidence.filter((e) => ids.has(e));
      skippedEvidence += q.evidence.length - valid.length;
      if (!valid.length) skippedQuestions++;
    }
  }
  return { questions, skipped_questions: skippedQuestions, evidence_ids: evidence, skipped_evidence_ids: skippedEvidence };
}

/**
 * recall@k = |evidence ∩ top-k dia_ids| / |evidence| per question (evidence
 * ids that name no turn are skipped), averaged per category and overall.
 */
export async function evaluateRecall(
  conversations: RecallConversation[],
  ingested: Ingested,
  search: SearchFn,
  ks: number[],
  concurrency = 4,
): Promise<{ summary: RecallSummary; rankings: Rankings }> {
  const maxK = Math.max(...ks);
  const rankings: Rankings = {};
  const scores: Array<{ category: string; recall: number[] }> = [];
  const jobs = conversations.flatMap((c) => {
    const ids = new Set(c.turns.map((t) => t.diaId));
    return c.questions.map((q) => ({ c, q, evidence: [...new Set(q.evidence.filter((e) => ids.has(e)))] }));
  });
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { c, q, evidence } = jobs[next++];
      const ranked = rankDiaIds(await search(namespaceFor(c.key), q.question), ingested, maxK);
      (rankings[c.key] ??= {})[String(q.index)] = ranked;
      if (!evidence.length) continue;
      scores.push({ category: q.category, recall: ks.map((k) => evidence.filter((e) => ranked.slice(0, k).includes(e)).length / evidence.length) });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const mean = (rows: typeof scores) => Object.fromEntries(ks.map((k, i) => [String(k), round4(rows.reduce((s, r) => s + r.recall[i], 0) / Math.max(1, rows.length))]));
  const categories = [...new Set(scores.map((s) => s.category))].sort();
  return {
    summary: {
      questions: scores.length,
      overall: mean(scores),
      by_category: Object.fromEntries(categories.map((cat) => {
        const rows = scores.filter((s) => s.category === cat);
        return [cat, { questions: rows.length, recall: mean(rows) }];
      })),
    },
    rankings,
  };
}
