import { createTestDatabase, type TestDatabase } from './support/db.js';
import { insertEntity, insertEpisode, insertFact, startReadApi, type ReadApi } from './support/graphFixtures.js';

/**
 * Property: whatever is written into several namespaces and users, no read of
 * one scope ever returns a row (or a provenance id) of another. Data and
 * queries come from a seeded generator over one shared vocabulary, so every
 * query matches rows in every scope and only the filters keep them apart.
 */

const NOW = new Date('2026-06-15T12:00:00Z');
const NAMESPACES = ['iso-a', 'iso-b', 'iso-c'];
const USERS = ['u1', 'u2', ''] as const; // '' = rows written without a user
const PEOPLE = ['Alice', 'Bob', 'Carol', 'Dave', 'Erin'];
const ORGS = ['Acme', 'Globex', 'Initech'];
const PLACES = ['Paris', 'Rome', 'Oslo'];
const TOPICS = ['pizza', 'hiking', 'budget', 'invoice', 'meeting', 'guitar', 'marathon', 'vacation'];

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Owner {
  ns: string;
  user: string;
  forgotten: boolean;
}

interface Hit {
  type: string;
  id: string;
  episode_ids: string[];
}

describe('namespace and user isolation (property)', () => {
  let db: TestDatabase;
  let api: ReadApi;
  const owners = new Map<string, Owner>();
  const entitiesByScope = new Map<string, string[]>();
  const rand = mulberry32(20261121);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
  const sentence = () =>
    `${pick(PEOPLE)} talked about ${pick(TOPICS)} with ${pick(PEOPLE)} at ${pick(ORGS)} in ${pick(PLACES)}; ${pick(TOPICS)} and ${pick(TOPICS)} came up.`;
  const randomDate = () => new Date(Date.UTC(2023, 0, 1) + rand() * (NOW.getTime() - Date.UTC(2023, 0, 1)));

  beforeAll(async () => {
    db = await createTestDatabase();
    api = await startReadApi(db.url, NOW);
    const pool = api.deps.pool;
    for (const ns of NAMESPACES) {
      for (const user of USERS) {
        const episodes: string[] = [];
        for (let i = 0; i < 12; i++) {
          const forgotten = rand() < 0.1;
          const id = await insertEpisode(pool, {
            namespace: ns,
            userId: user || null,
            agentId: pick(['agent-x', 'agent-y']),
            runId: pick(['run-1', 'run-2']),
            speaker: user ? `${user}-speaker` : pick(PEOPLE),
            content: sentence(),
            occurredAt: randomDate(),
            forgottenAt: forgotten ? '2026-06-01T00:00:00Z' : null,
          });
          episodes.push(id);
          owners.set(id, { ns, user, forgotten });
        }
        const entities: string[] = [];
        const names: Array<[string, 'person' | 'organization' | 'place']> = [
          ...PEOPLE.map((n) => [n, 'person'] as [string, 'person']),
          ...ORGS.map((n) => [n, 'organization'] as [string, 'organization']),
          ...PLACES.map((n) => [n, 'place'] as [string, 'place']),
        ];
        if (user) names.push([`${user}-speaker`, 'person']);
        for (const [name, type] of names) {
          const forgotten = rand() < 0.1;
          const id = await insertEntity(pool, {
            namespace: ns,
            scopeUser: user,
            name,
            type,
            aliases: [name.toLowerCase()],
            properties: user && name === `${user}-speaker` ? { user_id: user } : {},
            forgottenAt: forgotten ? '2026-06-01T00:00:00Z' : null,
            episodeIds: episodes.filter(() => rand() < 0.3),
            firstSeenAt: '2023-01-01T00:00:00Z',
          });
          entities.push(id);
          owners.set(id, { ns, user, forgotten });
        }
        entitiesByScope.set(`${ns}/${user}`, entities);
        for (let i = 0; i < 25; i++) {
          const subjectId = pick(entities);
          const objectId = rand() < 0.7 ? pick(entities) : null;
          const forgotten = rand() < 0.1;
          const id = await insertFact(pool, {
            namespace: ns,
            scopeUser: user,
            subjectId,
            objectId,
            value: objectId ? null : pick(TOPICS),
            predicate: pick(['knows', 'works_at', 'likes', 'visited', 'related_to']),
            family: pick(['people', 'work', 'preferences', 'places', 'other']),
            factText: sentence(),
            validFrom: rand() < 0.5 ? randomDate() : null,
            invalidAt: rand() < 0.2 ? randomDate() : null,
            forgottenAt: forgotten ? '2026-06-01T00:00:00Z' : null,
            episodeIds: [pick(episodes)],
          });
          owners.set(id, { ns, user, forgotten });
        }
      }
    }
  });

  afterAll(async () => {
    await api.close();
    await db.drop();
  });

  /** Every id a read returned must belong to the scope read (and be live). */
  function expectInScope(ids: string[], ns: string, user: string | undefined, where: string) {
    for (const id of ids) {
      const owner = owners.get(id);
      const ok = owner !== undefined && owner.ns === ns && (user === undefined || owner.user === user) && !owner.forgotten;
      if (!ok) throw new Error(`${where}: ${id} (${JSON.stringify(owner)}) leaked into ${ns}/${user ?? '*'}`);
    }
  }

  const scopes = NAMESPACES.flatMap((ns) => [undefined, 'u1', 'u2'].map((user) => [ns, user] as const));

  it.each(scopes)('search never leaves %s / %s', async (ns, user) => {
    let returned = 0;
    for (let round = 0; round < 6; round++) {
      const query = `${pick(PEOPLE)} ${pick(TOPICS)} ${pick(ORGS)} ${pick(PLACES)} ${round % 2 ? 'in 2024' : 'last June'}`;
      const body = {
        namespace: ns,
        ...(user ? { user_id: user } : {}),
        query,
        k: 50,
        recipe: pick(['default', 'graph', 'keyword_only', 'vector_only']),
        ...(round === 3 ? { as_of: '2025-01-01T00:00:00Z' } : {}),
        ...(round === 4 ? { agent_id: 'agent-x', run_id: 'run-1' } : {}),
      };
      const res = await api.request<{ results: Hit[] }>('POST', '/v1/search', body);
      expect(res.status).toBe(200);
      returned += res.body.results.length;
      expectInScope(res.body.results.map((r) => r.id), ns, user, `search ${JSON.stringify(body)}`);
      expectInScope(res.body.results.flatMap((r) => r.episode_ids), ns, user, 'search provenance');
    }
    expect(returned).toBeGreaterThan(0);
  });

  it.each(scopes)('context never leaves %s / %s', async (ns, user) => {
    const params = new URLSearchParams({ namespace: ns, query: `${pick(PEOPLE)} ${pick(TOPICS)} at ${pick(ORGS)}`, max_tokens: '4000' });
    if (user) params.set('user_id', user);
    const res = await api.request<{ facts: Array<{ id: string; episode_ids: string[] }>; memories: Hit[] }>('GET', `/v1/context?${params}`);
    expect(res.status).toBe(200);
    expectInScope(res.body.facts.map((f) => f.id), ns, user, 'context facts');
    expectInScope(res.body.memories.map((m) => m.id), ns, user, 'context memories');
    expectInScope([...res.body.facts, ...res.body.memories].flatMap((m) => m.episode_ids), ns, user, 'context provenance');
    expect(res.body.memories.length).toBeGreaterThan(0);
  });

  it.each(scopes)('entity list, entity memory, neighborhood and profile never leave %s / %s', async (ns, user) => {
    const suffix = user ? `&user_id=${user}` : '';
    const list = await api.request<{ entities: Hit[] }>('GET', `/v1/entities?namespace=${ns}&q=${pick(PEOPLE)}${suffix}&limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.entities.length).toBeGreaterThan(0);
    expectInScope(list.body.entities.map((e) => e.id), ns, user, 'entity list');

    // Entities of every scope, asked for by id from this one: visible only when they belong here.
    for (const [key, ids] of entitiesByScope) {
      for (const id of ids.filter(() => rand() < 0.3)) {
        const owner = owners.get(id)!;
        const visible = owner.ns === ns && (user === undefined || owner.user === user) && !owner.forgotten;
        const memory = await api.request<{ facts: Array<{ id: string; episode_ids: string[] }> }>('GET', `/v1/entities/${id}?namespace=${ns}${suffix}`);
        expect([key, memory.status]).toEqual([key, visible ? 200 : 404]);
        const graph = await api.request<{ nodes: Array<{ id: string }>; edges: Array<{ id: string }> }>(
          'GET',
          `/v1/entities/${id}/neighborhood?namespace=${ns}&depth=3${suffix}`,
        );
        expect(graph.status).toBe(visible ? 200 : 404);
        if (visible) {
          expectInScope(memory.body.facts.map((f) => f.id), ns, user, 'entity memory');
          expectInScope(memory.body.facts.flatMap((f) => f.episode_ids), ns, user, 'entity memory provenance');
          expectInScope(graph.body.nodes.map((n) => n.id).filter((n) => !n.startsWith('value:')), ns, user, 'neighborhood nodes');
          expectInScope(graph.body.edges.map((e) => e.id), ns, user, 'neighborhood edges');
        }
      }
    }

    if (user) {
      const profile = await api.request<{ families: Record<string, Array<{ id: string; episode_ids: string[] }>> }>(
        'GET',
        `/v1/users/${user}/profile?namespace=${ns}`,
      );
      expect(profile.status).toBe(200);
      const facts = Object.values(profile.body.families).flat();
      expectInScope(facts.map((f) => f.id), ns, user, 'profile');
      expectInScope(facts.flatMap((f) => f.episode_ids), ns, user, 'profile provenance');
    }
  });
});
