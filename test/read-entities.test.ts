import { createApiKey } from '../core/auth/apiKeys.js';
import { insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'graph';
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();

interface EntityView {
  id: string;
  name: string;
  type: string;
  score?: number;
}
interface FactView {
  id: string;
  fact_text: string;
  effective_confidence: number;
  decay_class: string;
  source: string;
  freshness: string;
  family: string;
  episode_ids: string[];
}
interface Neighborhood {
  nodes: Array<{ id: string; name: string; type: string; depth: number }>;
  edges: Array<{ id: string; source: string; target: string; predicate: string }>;
}
interface Profile {
  user_id: string;
  entities: EntityView[];
  families: Record<string, FactView[]>;
  fact_count: number;
}

describe('entity, neighborhood and profile reads', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    const ep = await insertEpisode(pool, { namespace: NS, userId: 'u1', content: 'Alice joined Beacon Capital in Boston.', occurredAt: daysAgo(30) });
    ids.ep = ep;
    const ent = async (key: string, e: Omit<Parameters<typeof insertEntity>[1], 'namespace'>) => {
      ids[key] = await insertEntity(pool, { namespace: NS, scopeUser: 'u1', ...e });
    };
    await ent('alice', { name: 'Alice', aliases: ['Ally', 'the CEO'], properties: { user_id: 'u1' }, episodeIds: [ep] });
    await ent('beacon', { name: 'Beacon Capital', type: 'organization', episodeIds: [ep] });
    await ent('acme', { name: 'Acme Corp', type: 'organization' });
    await ent('boston', { name: 'Boston', type: 'place', episodeIds: [ep] });
    await ent('usa', { name: 'United States', type: 'place' });
    await ent('bob', { name: 'Bob', firstSeenAt: daysAgo(5) });
    await ent('secret', { name: 'Secret Project', type: 'project', forgottenAt: daysAgo(1) });
    ids.otherNs = await insertEntity(pool, { namespace: 'elsewhere', name: 'Alice', scopeUser: 'u1' });
    ids.otherUser = await insertEntity(pool, { namespace: NS, name: 'Alice Other', scopeUser: 'u2' });
    const fact = async (key: string, f: Omit<Parameters<typeof insertFact>[1], 'namespace'>) => {
      ids[key] = await insertFact(pool, { namespace: NS, scopeUser: 'u1', ...f });
    };
    await fact('worksBeacon', {
      subjectId: ids.alice, predicate: 'works_at', objectId: ids.beacon, family: 'work', factText: 'Alice works at Beacon Capital.',
      importance: 0.9, confidence: 0.8, lastConfirmedAt: daysAgo(30), validFrom: daysAgo(45), source: 'agent:crm/episode:1', episodeIds: [ep],
    });
    await fact('worksAcme', {
      subjectId: ids.alice, predicate: 'works_at', objectId: ids.acme, family: 'work', factText: 'Alice works at Acme Corp.',
      validFrom: daysAgo(500), invalidAt: daysAgo(45), expiredAt: daysAgo(30),
    });
    await fact('likes', {
      subjectId: ids.alice, predicate: 'likes', value: 'sailing', family: 'preferences', factText: 'Alice likes sailing.',
      importance: 0.3, confidence: 0.9, decayClass: 'fast_decay', lastConfirmedAt: daysAgo(21),
    });
    await fact('born', {
      subjectId: ids.alice, predicate: 'born_on', value: '1990-04-02', family: 'people', factText: 'Alice was born on 2 April 1990.',
      importance: 0.6, confidence: 0.7, decayClass: 'permanent', lastConfirmedAt: daysAgo(300),
    });
    await fact('beaconCity', { subjectId: ids.beacon, predicate: 'located_in', objectId: ids.boston, family: 'places', factText: 'Beacon Capital is in Boston.' });
    await fact('bostonUsa', { subjectId: ids.boston, predicate: 'located_in', objectId: ids.usa, family: 'places', factText: 'Boston is in the United States.' });
    await fact('bobKnows', { subjectId: ids.bob, predicate: 'knows', objectId: ids.alice, family: 'people', factText: 'Bob knows Alice.', validFrom: daysAgo(5) });
    await fact('secretFact', { subjectId: ids.alice, predicate: 'works_on', objectId: ids.secret, family: 'work', factText: 'Alice works on Secret Project.' });
    await fact('forgottenFact', { subjectId: ids.alice, predicate: 'has_condition', value: 'asthma', family: 'health', factText: 'Alice has asthma.', forgottenAt: daysAgo(2) });
    await insertFact(pool, { namespace: NS, scopeUser: 'u2', subjectId: ids.otherUser, predicate: 'likes', value: 'golf', family: 'preferences', factText: 'Alice Other likes golf.' });
  });


  const get = <T>(path: string, key?: string) => api.request<T & { error?: { code: string; details: Array<{ field: string }> } }>('GET', path, undefined, key);

  describe('GET /v1/entities', () => {
    it('finds by exact name first, then partial and fuzzy matches', async () => {
      const { status, body } = await get<{ entities: EntityView[] }>(`/v1/entities?namespace=${NS}&q=alice`);
      expect(status).toBe(200);
      expect(body.entities[0]).toMatchObject({ id: ids.alice, score: 1 });
      const found = body.entities.map((e) => e.id);
      expect(found).toContain(ids.otherUser);
      expect(found).not.toContain(ids.otherNs);
    });

    it('finds by alias in any case, by substring, and by a typo', async () => {
      const alias = await get<{ entities: EntityView[] }>(`/v1/entities?namespace=${NS}&q=THE%20ceo`);
      expect(alias.body.entities[0].id).toBe(ids.alice);
      const sub = await get<{ entities: EntityView[] }>(`/v1/entities?namespace=${NS}&q=Beacon`);
      expect(sub.body.entities[0].id).toBe(ids.beacon);
      const typo = await get<{ entities: EntityView[] }>(`/v1/entities?namespace=${NS}&q=Bostn`);
      expect(typo.body.entities[0].id).toBe(ids.boston);
    });

    it('filters by type and user, and hides forgotten entities', async () => {
      const places = await get<{ entities: EntityView[] }>(`/v1/entities?namespace=${NS}&type=place`);
      expect(places.body.entities.map((e) => e.name).sort()).toEqual(['Boston', 'United States']);
      const u1 = await get<{ entities: EntityView[] }>(`/v1/entities?namespace=${NS}&user_id=u1&q=alice`);
      expect(u1.body.entities.map((e) => e.id)).toEqual([ids.alice]);
      const all = await get<{ entities: EntityView[] }>(`/v1/entities?namespace=${NS}&limit=100`);
      expect(all.body.entities.map((e) => e.id)).not.toContain(ids.secret);
      const asOf = await get<{ entities: EntityView[] }>(`/v1/entities?namespace=${NS}&limit=100&as_of=${daysAgo(10)}`);
      expect(asOf.body.entities.map((e) => e.id)).not.toContain(ids.bob);
    });

    it('validates its query', async () => {
      for (const bad of ['type=robot', 'limit=0', 'limit=x', 'as_of=soon', 'include_forgotten=maybe', 'q=']) {
        const res = await get(`/v1/entities?namespace=${NS}&${bad}`);
        expect(res.status).toBe(400);
      }
    });
  });

  describe('GET /v1/entities/:id', () => {
    it('returns entity memory: active facts as subject or object, by priority, with decay and provenance', async () => {
      const { status, body } = await get<{ entity: EntityView; facts: FactView[] }>(`/v1/entities/${ids.alice}?namespace=${NS}`);
      expect(status).toBe(200);
      expect(body.entity).toMatchObject({ id: ids.alice, name: 'Alice', type: 'person' });
      const factIds = body.facts.map((f) => f.id);
      // priority = effective confidence × (0.5 + importance / 2): 0.68, 0.56, 0.29, 0.28
      expect(factIds).toEqual([ids.worksBeacon, ids.born, ids.likes, ids.bobKnows]);
      expect(body.facts[0]).toMatchObject({ decay_class: 'slow_decay', source: 'agent:crm/episode:1', freshness: 'confirmed 4 weeks ago', episode_ids: [ids.ep] });
      expect(body.facts[0].effective_confidence).toBeCloseTo(0.8 * Math.pow(0.5, 30 / 180), 3);
      expect(body.facts.find((f) => f.id === ids.likes)?.effective_confidence).toBeCloseTo(0.45, 3);
    });

    it('time travels with as_of', async () => {
      const { body } = await get<{ facts: FactView[] }>(`/v1/entities/${ids.alice}?namespace=${NS}&as_of=${daysAgo(100)}`);
      const factIds = body.facts.map((f) => f.id);
      expect(factIds).toContain(ids.worksAcme);
      expect(factIds).not.toContain(ids.worksBeacon);
      expect(factIds).not.toContain(ids.bobKnows);
    });

    it('404s for another namespace, another user, a forgotten entity; 400 for a malformed id', async () => {
      expect((await get(`/v1/entities/${ids.otherNs}?namespace=${NS}`)).status).toBe(404);
      expect((await get(`/v1/entities/${ids.alice}?namespace=elsewhere`)).status).toBe(404);
      expect((await get(`/v1/entities/${ids.otherUser}?namespace=${NS}&user_id=u1`)).status).toBe(404);
      expect((await get(`/v1/entities/${ids.secret}?namespace=${NS}`)).status).toBe(404);
      expect((await get(`/v1/entities/not-a-uuid?namespace=${NS}`)).status).toBe(400);
    });

    it('shows forgotten rows to operators who ask, and refuses agents', async () => {
      const shown = await get<{ facts: FactView[] }>(`/v1/entities/${ids.alice}?namespace=${NS}&include_forgotten=true`);
      expect(shown.body.facts.map((f) => f.id)).toEqual(expect.arrayContaining([ids.forgottenFact, ids.secretFact]));
      const agent = await createApiKey(api.deps.pool, { role: 'agent', namespace: NS });
      expect((await get(`/v1/entities/${ids.alice}?namespace=${NS}&include_forgotten=true`, agent.key)).status).toBe(403);
      expect((await get(`/v1/entities/${ids.alice}?namespace=${NS}`, agent.key)).status).toBe(200);
      const operator = await createApiKey(api.deps.pool, { role: 'operator', namespace: NS });
      expect((await get(`/v1/entities/${ids.secret}?namespace=${NS}&include_forgotten=true`, operator.key)).status).toBe(200);
      // A key of another namespace cannot even ask.
      expect((await get(`/v1/entities/${ids.alice}?namespace=elsewhere`, agent.key)).status).toBe(403);
    });
  });

  describe('GET /v1/entities/:id/neighborhood', () => {
    it('depth 1: direct neighbours and literal values', async () => {
      const { status, body } = await get<Neighborhood>(`/v1/entities/${ids.alice}/neighborhood?namespace=${NS}`);
      expect(status).toBe(200);
      const entityNodes = body.nodes.filter((n) => n.type !== 'value');
      expect(entityNodes.map((n) => n.name).sort()).toEqual(['Alice', 'Beacon Capital', 'Bob']);
      expect(body.nodes.find((n) => n.id === ids.alice)?.depth).toBe(0);
      const values = body.nodes.filter((n) => n.type === 'value').map((n) => n.name).sort();
      expect(values).toEqual(['1990-04-02', 'sailing']);
      expect(body.edges.find((e) => e.id === ids.worksBeacon)).toMatchObject({ source: ids.alice, target: ids.beacon, predicate: 'works_at' });
      expect(body.edges.map((e) => e.id)).not.toContain(ids.worksAcme);
      expect(body.edges.map((e) => e.id)).not.toContain(ids.secretFact);
    });

    it('depth 2 and 3 walk further', async () => {
      const two = await get<Neighborhood>(`/v1/entities/${ids.alice}/neighborhood?namespace=${NS}&depth=2`);
      expect(two.body.nodes.find((n) => n.id === ids.boston)?.depth).toBe(2);
      expect(two.body.nodes.map((n) => n.id)).not.toContain(ids.usa);
      const three = await get<Neighborhood>(`/v1/entities/${ids.alice}/neighborhood?namespace=${NS}&depth=3`);
      expect(three.body.nodes.find((n) => n.id === ids.usa)?.depth).toBe(3);
      const nodeIds = new Set(three.body.nodes.map((n) => n.id));
      expect(three.body.edges.every((e) => nodeIds.has(e.source) && nodeIds.has(e.target))).toBe(true);
    });

    it('validates depth and 404s outside the scope', async () => {
      expect((await get(`/v1/entities/${ids.alice}/neighborhood?namespace=${NS}&depth=4`)).status).toBe(400);
      expect((await get(`/v1/entities/${ids.alice}/neighborhood?namespace=${NS}&depth=0`)).status).toBe(400);
      expect((await get(`/v1/entities/${ids.otherNs}/neighborhood?namespace=${NS}`)).status).toBe(404);
    });
  });

  describe('GET /v1/users/:user_id/profile', () => {
    it("groups the user's active facts by family", async () => {
      const { status, body } = await get<Profile>(`/v1/users/u1/profile?namespace=${NS}`);
      expect(status).toBe(200);
      expect(body.entities.map((e) => e.id)).toEqual([ids.alice]);
      expect(body.families.work.map((f) => f.id)).toEqual([ids.worksBeacon]);
      expect(body.families.preferences.map((f) => f.id)).toEqual([ids.likes]);
      expect(body.families.people.map((f) => f.id)).toEqual([ids.born]);
      expect(body.families.health).toEqual([]);
      expect(body.fact_count).toBe(3);
      expect(JSON.stringify(body)).not.toContain('golf');
    });

    it('time travels with as_of', async () => {
      const { body } = await get<Profile>(`/v1/users/u1/profile?namespace=${NS}&as_of=${daysAgo(100)}`);
      expect(body.families.work.map((f) => f.id)).toEqual([ids.worksAcme]);
    });

    it('shows every fact learnt for a user no entity stands for', async () => {
      const { body } = await get<Profile>(`/v1/users/u2/profile?namespace=${NS}`);
      expect(body.entities).toEqual([]);
      expect(body.families.preferences.map((f) => f.fact_text)).toEqual(['Alice Other likes golf.']);
    });

    it('is empty for an unknown user and validates its query', async () => {
      const { body } = await get<Profile>(`/v1/users/nobody/profile?namespace=${NS}`);
      expect(body.fact_count).toBe(0);
      expect((await get(`/v1/users/u1/profile?namespace=${NS}&as_of=never`)).status).toBe(400);
      expect((await get(`/v1/users/u1/profile?namespace=bad%20ns`)).status).toBe(400);
    });
  });
});
