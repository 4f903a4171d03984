import { memoizeBounded } from './memo.js';

/** A fact as the context block shows it: its text and when it starts to hold. */
interface TimedText {
  fact_text: string;
  valid_from: string | null;
}

/**
 * "Ana will start at Globex …": the verb said in the future, with what precedes and follows it. Lower-case "will"
 * only, and not the noun ("signed a will"): "Will" is a name.
 */
const FUTURE = /^(.*?)(?<!\b(?:a|the|his|her|my|their|our|your|its) )\bwill (\p{L}+)\b(.*)$/su;

/** Whether `f` was told as the future ("Ana will start at Globex on 3 March 2025.") and has started by `at`. */
export function isPastByNow(f: TimedText, at: Date): boolean {
  return f.valid_from !== null && Date.parse(f.valid_from) <= at.getTime() && FUTURE.test(f.fact_text);
}

/** The past of a verb said after `subject` ("Ana and Bo" + "be" → "were"), or null when compromise knows none. */
type Conjugate = (verb: string, subject: string) => string | null;

/**
 * compromise, loaded on first use, rather than the offline extractor's own
 * `pastTense` (core/extraction/heuristic/text.ts): that one's table of
 * irregular verbs covers the verbs the extractor writes, while facts the model
 * provider wrote may use any verb ("will write" must become "wrote"). The API
 * needs it only when a context block lists a fact told in the future that has
 * started since (an import of old memories, a plan whose day came), and
 * loading it costs about 300 ms and 30 MB.
 */
let conjugator: Promise<Conjugate> | undefined;

function loadConjugator(): Promise<Conjugate> {
  conjugator ??= import('compromise').then(({ default: nlp }) => {
    // One verb at a time (0.5 ms; a whole sentence took 2 ms), and each verb once per process.
    const pastOf = memoizeBounded((verb) => {
      const forms = nlp(verb).verbs().conjugate()[0] as { PastTense?: string } | undefined;
      return forms?.PastTense ?? null;
    }, 2_000);
    // "be" alone agrees with its subject: "Ana and Bo were", "we were", "Sam's parents were", "Sam was".
    const isPlural = (subject: string) => {
      const doc = nlp(subject);
      const head = doc.nouns().last() as ReturnType<typeof doc.nouns>; // last() is typed as a plain view
      return doc.has('^(we|they|you)$') || doc.has('and') || head.isPlural().found;
    };
    return (verb, subject) => (verb === 'be' ? (isPlural(subject) ? 'were' : 'was') : pastOf(verb));
  });
  return conjugator;
}

/**
 * The facts as said at `at`: one told in the future whose start has passed by
 * then reads in the past ("Ana will start at Globex on 3 March 2025." read in
 * 2026 is "Ana started at Globex on 3 March 2025."), so a block of current
 * facts never announces what already happened. The others are returned as they are.
 */
export async function saidAt<T extends TimedText>(facts: T[], at: Date): Promise<T[]> {
  if (!facts.some((f) => isPastByNow(f, at))) return facts;
  const past = await loadConjugator();
  return facts.map((f) => {
    if (!isPastByNow(f, at)) return f;
    const [, before, verb, after] = FUTURE.exec(f.fact_text)!;
    const conjugated = past(verb.toLowerCase(), before);
    return conjugated ? { ...f, fact_text: `${before}${conjugated}${after}` } : f;
  });
}
