import type { EntityType } from '../domain/types.js';

/** The wh-words that open a question; the first one in the question decides what kind of answer it wants. */
const WH_WORD = /\b(who|whom|whose|where|when|which|what|how|why)\b/i;

/** Head nouns after "which"/"what" that name the kind of thing asked for ("What countries…", "Which famous places…"). */
const TYPED_HEADS: Array<[RegExp, EntityType[]]> = [
  [/^(countr(y|ies)|cit(y|ies)|states?|towns?|places?|destinations?|locations?|islands?|continents?|regions?|neighbou?rhoods?)$/i, ['place']],
  [/^(compan(y|ies)|universit(y|ies)|colleges?|schools?|organi[sz]ations?|employers?|firms?|brands?|clubs?)$/i, ['organization']],
  [/^(person|people|friends?|relatives?|family|members?)$/i, ['person']],
];

/** Words that may sit between "which/what" and the head noun ("what kind of", "which famous"). */
const HEAD_WINDOW = 4;

/**
 * Verbs that make "where" ask for an organization: where someone works or studies is an employer or a
 * school ("Where does Ana work?" is answered by "Ana works at Globex", not by "Ana lives in Lisbon").
 */
const WORKPLACE_VERB = /^(work(s|ed|ing)?|employed|stud(y|ies|ied|ying)|intern(s|ed|ing)?)$/i;
/** Words that may sit between "where" and that verb ("where does Ana's brother work"). */
const VERB_WINDOW = 5;

/**
 * Answer-type classification (question classification in QA retrieval, after
 * Li & Roth): the entity types a question's answer is likely to be, from its
 * wh-word and the noun after "which"/"what". Empty when the question asks for
 * something else (a time, a reason, a description) or is not a question.
 * Hand-written because it is a dozen rules over the same entity types our
 * extraction assigns; a trained classifier would need a model on the read path.
 */
export function expectedAnswerTypes(query: string): EntityType[] {
  const match = WH_WORD.exec(query);
  if (!match) return [];
  const wh = match[1].toLowerCase();
  const wordsAfter = (n: number) => query.slice(match.index + match[0].length).split(/[^\p{L}'-]+/u).filter(Boolean).slice(0, n);
  if (wh === 'where') return wordsAfter(VERB_WINDOW).some((word) => WORKPLACE_VERB.test(word)) ? ['organization'] : ['place', 'organization'];
  if (wh === 'who' || wh === 'whom' || wh === 'whose') return ['person'];
  if (wh !== 'which' && wh !== 'what') return [];
  for (const word of wordsAfter(HEAD_WINDOW)) {
    const typed = TYPED_HEADS.find(([head]) => head.test(word));
    if (typed) return typed[1];
  }
  return [];
}
