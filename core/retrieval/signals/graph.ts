import { escapeRegExp } from '../../text/regex.js';
import { entitiesNamedIn, type EntitySeed } from '../entityMatch.js';
import { memoizeBounded } from '../memo.js';
import { episodeFilter, factFilter } from '../scope.js';
import { SqlParams } from '../sql.js';
import { weightedTerms } from './keyword.js';
import type { Hit, RankedList } from '../types.js';
import type { SignalInput } from './context.js';
import { readsScopeEpisodes, SCOPE_EPISODES } from './scopeEpisodes.js';
import type { SignalBranchBuilder, SignalBranches } from './statement.js';

interface EdgeRow {
  id: string;
  subject_id: string;
  object_id: string | null;
  distance: number | null;
}

// Caps how many episodes of one (possibly hub) entity are compared with the query.
const MAX_LINKED_EPISODES = 5000;
// Closeness to the query only breaks ties between episodes sharing the same rare query words.
const LAMBDA = 2;

function ranked(scores: Map<string, number>, depth: number): Hit[] {
  return [...scores.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, depth)
    .map(([id, score]) => ({ id, score }));
}

export interface GraphSignal {
  /** The walk's rankings of facts and entities. */
  lists: RankedList[];
  /** The episodes of the named entities, asked in the search's combined statement; null when nothing is named. */
  episodes: SignalBranchBuilder | null;
  /** Lower-cased names and aliases of the people the query names: how their turns' speaker labels look. */
  speakerNames: string[];
  /** The entities the query names (an answer is some other entity). */
  namedEntityIds: string[];
}

export const NOTHING_NAMED: GraphSignal = { lists: [], episodes: null, speakerNames: [], namedEntityIds: [] };

function personNames(seeds: EntitySeed[]): Array<{ name: string; score: number }> {
  return seeds.filter((s) => s.type === 'person').flatMap((s) => s.names.map((name) => ({ name, score: s.score })));
}

/**
 * Graph signal: entities named in the query, then a breadth-first walk over
 * active facts up to `graph_hops`, each hop multiplying the score by
 * `graph_decay`. Facts within a hop are ordered by closeness to the query, so
 * a hub entity (the speaker, the user) contributes its relevant facts first,
 * not all of them. Also ranks the episodes the named entities appear in.
 */
export async function graphSignal(input: SignalInput): Promise<GraphSignal> {
  const { recipe, scope, db } = input;
  const depth = recipe.depths.graph;
  if (depth === 0) return NOTHING_NAMED;
  const seeds = await entitiesNamedIn(db, scope, input.query);
  if (!seeds.length) return NOTHING_NAMED;

  const entityScores = new Map<string, number>(seeds.map((s) => [s.id, s.score]));
  const factScores = new Map<string, number>();
  let frontier = new Map(entityScores);
  // The walk never passes through a forgotten entity. The object's check is a scalar lookup per fact row: as a
  // join (or EXISTS, which the planner may hash), it read every entity of the namespace into a hash table, 3.5 of
  // a hop's 3.9 ms at 4,400 entities for the handful of facts a hop usually finds.
  const live = (a: string) => (scope.includeForgotten ? 'true' : `${a}.forgotten_at IS NULL AND ${a}.merged_into IS NULL`);
  const liveObject = scope.includeForgotten
    ? 'true'
    : `coalesce((SELECT ${live('o')} FROM entity o WHERE o.id = f.object_id), true)`;
  const walk = input.kinds.has('fact') || input.kinds.has('entity');
  for (let hop = 1; walk && hop <= recipe.graph_hops && frontier.size; hop++) {
    const p = new SqlParams();
    const ids = `${p.add([...frontier.keys()])}::uuid[]`;
    const { rows } = await db.query<EdgeRow>(
      `SELECT f.id, f.subject_id, f.object_id, f.embedding <=> ${p.add(await input.vector())}::vector AS distance
       FROM fact f JOIN entity s ON s.id = f.subject_id
       WHERE ${factFilter(p, scope)} AND (f.subject_id = ANY(${ids}) OR f.object_id = ANY(${ids}))
         AND ${live('s')} AND ${liveObject}
       ORDER BY distance ASC NULLS LAST, f.id LIMIT ${p.add(depth * 2)}`,
      p.values,
    );
    const next = new Map<string, number>();
    for (const row of rows) {
      const similarity = row.distance === null ? 0 : 1 - row.distance;
      const reach = (frontier.get(row.subject_id) ?? 0) + (row.object_id ? frontier.get(row.object_id) ?? 0 : 0);
      const score = reach * (0.5 + 0.5 * similarity);
      factScores.set(row.id, Math.max(factScores.get(row.id) ?? 0, score));
      for (const other of [row.subject_id, row.object_id]) {
        if (other && !entityScores.has(other)) {
          next.set(other, Math.max(next.get(other) ?? 0, reach * recipe.graph_decay));
        }
      }
    }
    for (const [id, score] of next) entityScores.set(id, score);
    frontier = new Map([...next.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20));
  }

  const lists: RankedList[] = [];
  if (input.kinds.has('fact')) lists.push({ signal: 'graph', kind: 'fact', hits: ranked(factScores, depth) });
  if (input.kinds.has('entity')) lists.push({ signal: 'graph', kind: 'entity', hits: ranked(entityScores, depth) });
  return {
    lists,
    episodes: input.kinds.has('episode') ? (_input, p) => seedEpisodes(input, p, seeds) : null,
    speakerNames: [...new Set(personNames(seeds).map((s) => s.name))],
    namedEntityIds: seeds.map((s) => s.id),
  };
}

/**
 * The query without the seeds' names: among the named entities' own episodes
 * their names say nothing more, and would favour turns that merely address
 * them ("Hi Kevin!") over what they said.
 */
export function withoutNames(query: string, seeds: EntitySeed[]): string {
  const names = [...new Set(seeds.flatMap((s) => s.names))].filter((n) => n.length > 1).sort((a, b) => b.length - a.length);
  return names.reduce((text, name) => removeName(text, name), query);
}

/** A letter or a digit in any script: what may not touch a name on either side. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;

const isWordCharacter = (codePoint: number | undefined) => codePoint !== undefined && WORD_CHARACTER.test(String.fromCodePoint(codePoint));

/** The code point that ends just before `index` (a surrogate pair counts as one). */
function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const last = text.charCodeAt(index - 1);
  if (last >= 0xdc00 && last <= 0xdfff && index >= 2) {
    const first = text.charCodeAt(index - 2);
    if (first >= 0xd800 && first <= 0xdbff) return text.codePointAt(index - 2);
  }
  return text.codePointAt(index - 1);
}

/**
 * `name` and a possessive 's, in any case, in `pattern`; the word boundaries
 * are checked by `removeName`. Compiled once per name: with the boundaries in
 * the pattern (Unicode letter classes on both sides of a case-insensitive
 * match) compiling one took about 0.5 ms, and agents name new people turn
 * after turn; without them, 20 µs (10,000 patterns hold a few MB).
 */
const namePattern = memoizeBounded((name) => new RegExp(`(${escapeRegExp(name)})(['’]s)?`, 'giu'), 10_000);

/**
 * `text` with every whole-word occurrence of `name` (with a possessive 's)
 * replaced by a space, as `(?<![\p{L}\p{N}])name(?:['’]s)?(?![\p{L}\p{N}])`
 * would replace it: a match must not follow or precede a letter or digit; when
 * the possessive is followed by one, the name alone still counts.
 */
function removeName(text: string, name: string): string {
  const pattern = namePattern(name);
  let out = '';
  let copied = 0;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const start = match.index;
    let end = -1;
    if (!isWordCharacter(codePointBefore(text, start))) {
      const full = start + match[0].length;
      const bare = start + match[1].length;
      if (!isWordCharacter(text.codePointAt(full))) end = full;
      else if (full !== bare && !isWordCharacter(text.codePointAt(bare))) end = bare;
    }
    if (end < 0) {
      // No whole word here: look again one character on (a surrogate pair is one), as the regular expression would.
      pattern.lastIndex = start + ((text.codePointAt(start) ?? 0) > 0xffff ? 2 : 1);
      continue;
    }
    out += `${text.slice(copied, start)} `;
    copied = end;
    pattern.lastIndex = end;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/**
 * Episodes of the named entities: those that mention them, and when the
 * recipe asks for it (`graph_speaker_turns`) every turn a named person said
 * ("I" is the speaker). In a narrow scope whose episodes the
 * statement already reads (SCOPE_EPISODES), they are taken from there: only
 * the scope's own linked episodes count against MAX_LINKED_EPISODES, and none
 * is read again.
 */
async function seedEpisodes(input: SignalInput, p: SqlParams, seeds: EntitySeed[]): Promise<SignalBranches> {
  const shared = readsScopeEpisodes(input);
  const filter = shared ? '' : episodeFilter(p, input.scope);
  const seedIds = p.add(seeds.map((s) => s.id));
  const seedScores = p.add(seeds.map((s) => s.score));
  const speakers = input.recipe.graph_speaker_turns ? personNames(seeds) : [];
  const speakerScores = () => `unnest(${p.add(speakers.map((s) => s.name))}::text[], ${p.add(speakers.map((s) => s.score))}::float8[]) AS sp(name, score)`;
  const speakerBranch = !speakers.length
    ? ''
    : shared
      ? `UNION ALL SELECT se.id, sp.score FROM ${SCOPE_EPISODES} se JOIN ${speakerScores()} ON se.speaker = sp.name`
      : `UNION ALL SELECT e.id, sp.score FROM episode e JOIN ${speakerScores()} ON lower(e.speaker) = sp.name WHERE ${filter}`;
  const mentions = shared
    ? `SELECT ee.episode_id AS id, seed.score FROM entity_episode ee JOIN graph_seed seed ON seed.id = ee.entity_id JOIN ${SCOPE_EPISODES} se ON se.id = ee.episode_id`
    : `SELECT ee.episode_id AS id, seed.score FROM entity_episode ee JOIN graph_seed seed ON seed.id = ee.entity_id`;
  const ctes = [
    weightedTerms(p, 'episode', withoutNames(input.query, seeds), 'graph_episode'),
    `graph_seed AS (SELECT * FROM unnest(${seedIds}::uuid[], ${seedScores}::float8[]) AS s(id, score)),
     graph_linked AS (${mentions} ${speakerBranch}),
     graph_best AS (SELECT id, max(score) AS score FROM graph_linked GROUP BY id LIMIT ${MAX_LINKED_EPISODES})`,
  ];
  const score = (tsv: string, distance: string) =>
    `(best.score * (coalesce((SELECT sum(t.idf) FROM terms_graph_episode t WHERE ${tsv} @@ t.tq), 0) + ${LAMBDA} * (1 - coalesce(${distance}, 1))))::float8`;
  const depth = p.add(input.recipe.depths.graph);
  const branch = shared
    ? `(SELECT 'graph' AS signal, 'episode' AS kind, se.id, ${score('se.content_tsv', 'se.own_distance')} AS score, 0::float8 AS tiebreak
    FROM graph_best best JOIN ${SCOPE_EPISODES} se ON se.id = best.id ORDER BY score DESC, se.id LIMIT ${depth})`
    : `(SELECT 'graph' AS signal, 'episode' AS kind, e.id, ${score('e.content_tsv', `e.embedding <=> ${p.add(await input.vector())}::vector`)} AS score, 0::float8 AS tiebreak
    FROM graph_best best JOIN episode e ON e.id = best.id
    WHERE ${filter} ORDER BY score DESC, e.id LIMIT ${depth})`;
  return { signal: 'graph', kinds: ['episode'], ctes, branches: [branch] };
}
