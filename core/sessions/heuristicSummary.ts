/**
 * The offline summarizer: an extractive digest of a run of turns. It keeps the
 * sentences that state a decision or a commitment verbatim, the named entities
 * (compromise's people, places and organizations, plus proper nouns such as
 * product names), and the opening request of the run as a note. Pure and
 * deterministic.
 */
import nlp from 'compromise';
import { EMPTY_SUMMARY, mergeSummaries, type SummaryDoc, type SummaryTurn } from './summary.js';

const DECISION =
  /\b(decided|decide to|decision|agreed|we agree|settled on|chose|chosen|choose to|go(?:ing)? with|opted|picked|approved|final answer|confirmed that|will use|we'll use|let's use|switch(?:ed|ing)? to)\b/i;
const COMMITMENT =
  /\b(i'll|i will|we'll|we will|you'll|you will|i'm going to|we're going to|will (?:send|do|write|draft|prepare|review|call|email|schedule|fix|ship|deliver|follow)|to-?do|action item|follow up|remind|deadline|due (?:on|by)|promised?|commit(?:ted)? to|assigned|by (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|eod|end of))\b/i;

/** Capitalized words that are not names. */
const NOT_NAMES = new Set(['i', 'ok', 'okay', 'yes', 'no', 'thanks', 'hi', 'hello', 'hey', 'sure', 'great', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday', 'today', 'tomorrow', 'yesterday']);

/** Turns whose words are the conversation (tool output and system prompts are not summarized). */
const SPOKEN = new Set<SummaryTurn['role']>(['user', 'assistant']);

function sentencesOf(text: string): string[] {
  return (nlp(text).sentences().out('array') as string[]).map((s) => s.trim()).filter(Boolean);
}

interface TaggedTerm {
  text: string;
  tags: string[];
}

/** Words that open a sentence with a capital without being a name. */
const FUNCTION_TAGS = ['Pronoun', 'Determiner', 'Preposition', 'Conjunction', 'Verb', 'Adverb', 'Auxiliary', 'QuestionWord', 'Expression', 'Adjective'];

/**
 * Runs of capitalized words ("Priya Sharma", "Helix Labs", "PostgreSQL"); a
 * run's sentence-initial word counts only when it is not a function word.
 * compromise alone misses names it cannot tag, often at a sentence start.
 */
function capitalizedRuns(text: string): string[] {
  const sentences = nlp(text).json({ terms: { tags: true } }) as Array<{ terms: TaggedTerm[] }>;
  const runs: string[] = [];
  for (const { terms } of sentences) {
    let run: string[] = [];
    const flush = () => {
      if (run.length) runs.push(run.join(' '));
      run = [];
    };
    terms.forEach((term, i) => {
      const word = term.text.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
      const capitalized = /^\p{Lu}/u.test(word) && !term.tags.includes('Date');
      const initialFunctionWord = i === 0 && term.tags.some((t) => FUNCTION_TAGS.includes(t)) && !term.tags.includes('ProperNoun');
      if (capitalized && !initialFunctionWord) run.push(word);
      else flush();
      // Punctuation after a word ends the run ("Berlin, Paris").
      if (/[,;:.!?()]/.test(term.text.slice(-1)) || /[,;:.!?()]/.test((term as { post?: string }).post ?? '')) flush();
    });
    flush();
  }
  return runs;
}

function namedEntities(text: string): string[] {
  const doc = nlp(text);
  const found = [...(doc.topics().out('array') as string[]), ...(doc.match('#ProperNoun+').not('#Date').out('array') as string[]), ...capitalizedRuns(text)];
  return found
    .flatMap((name) => name.split(/[,;]/))
    .map((name) => name.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/'s$/i, ''))
    .filter((name) => name.length > 1 && !NOT_NAMES.has(name.toLowerCase()));
}

/** Longer spellings win ("Priya Sharma" over "Priya"), first mention order kept. */
function preferFullNames(names: string[]): string[] {
  const unique = [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
  return unique.filter((n) => !unique.some((m) => m !== n && m.length > n.length && m.toLowerCase().split(/\s+/).includes(n.toLowerCase())));
}

/** The digest of these turns alone. */
export function summarizeTurns(turns: SummaryTurn[]): SummaryDoc {
  const doc: SummaryDoc = { decisions: [], commitments: [], entities: [], notes: [] };
  const spoken = [...turns].sort((a, b) => a.turnIndex - b.turnIndex).filter((t) => SPOKEN.has(t.role) && t.content.trim());
  const names: string[] = [];
  for (const turn of spoken) {
    for (const sentence of sentencesOf(turn.content)) {
      if (sentence.endsWith('?')) continue;
      if (DECISION.test(sentence)) doc.decisions.push(sentence);
      else if (COMMITMENT.test(sentence)) doc.commitments.push(`${turn.role === 'user' ? 'User' : 'Assistant'}: ${sentence}`);
    }
    names.push(...namedEntities(turn.content));
  }
  doc.entities = preferFullNames(names);
  const opening = spoken.find((t) => t.role === 'user');
  const firstSentence = opening ? sentencesOf(opening.content)[0] : undefined;
  if (firstSentence) doc.notes.push(`Turn ${opening!.turnIndex} (user): ${firstSentence}`);
  return doc;
}

/** The running summary after folding `turns` into `previous`. */
export function foldTurnsHeuristically(previous: SummaryDoc | null, turns: SummaryTurn[]): SummaryDoc {
  return mergeSummaries(previous ?? EMPTY_SUMMARY, summarizeTurns(turns));
}
