import { baseKeys, decideByBaseName } from '../core/entities/baseNameMatch.js';
import { insertEntity } from './support/graphFixtures.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

interface ExpandedEntity { id: string; name: string; type: string; aliases: string[]; surface: string }
interface ExpandedFact {
  id: string; fact_text: string; predicate: string; subject: { id: string; name: string }; object: { id: string; name: string } | null;
  value: string | null; valid_from: string | null; invalid_at: string | null; confidence: number; effective_confidence: number; relations: string[];
}
interface Expanded { id: string; fact_ids: string[]; entity_ids: string[]; facts: ExpandedFact[]; entities: ExpandedEntity[] }

describe('one entity per thing: write-time resolution by base name', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  const expanded = async (id: string) => {
    const res = await stack.request<Expanded>('GET', `/v1/memories/${id}?expand=facts`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const organization = async (namespace: string, content: string, name: string) => {
    const { id } = await remember(stack, { namespace, content });
    const entity = (await expanded(id)).entities.find((e) => e.surface === name || e.name === name || e.aliases.includes(name));
    if (!entity) throw new Error(`no entity for ${name} in ${JSON.stringify(await expanded(id))}`);
    return entity;
  };
  const liveOrganizations = async (namespace: string) =>
    (await stack.deps.pool.query<{ id: string; name: string; aliases: string[] }>(
      `SELECT id, name, aliases FROM entity WHERE namespace = $1 AND type = 'organization' AND merged_into IS NULL ORDER BY name`,
      [namespace],
    )).rows;

  it('"Acme Corp" then "Acme" (and back) is one entity, the surface form an alias', async () => {
    const first = await organization('acme', 'Stefan works at Acme Corp.', 'Acme Corp');
    const second = await organization('acme', 'Maria works at Acme.', 'Acme');
    expect(second.id).toBe(first.id);
    expect(second.name).toBe('Acme Corp');
    const rows = await liveOrganizations('acme');
    expect(rows).toHaveLength(1);
    expect(rows[0].aliases).toContain('Acme');

    const plain = await organization('acme-reverse', 'Maria works at Acme.', 'Acme');
    const suffixed = await organization('acme-reverse', 'Stefan works at Acme Corp.', 'Acme Corp');
    expect(suffixed.id).toBe(plain.id);
    expect((await liveOrganizations('acme-reverse')).map((r) => [r.name, r.aliases])).toEqual([['Acme', ['Acme Corp']]]);
  });

  it('"Beacon Capital GmbH" then "Beacon Capital" is one entity', async () => {
    const first = await organization('beacon', 'Lena joined Beacon Capital GmbH.', 'Beacon Capital GmbH');
    const second = await organization('beacon', 'Tom works at Beacon Capital.', 'Beacon Capital');
    expect(second.id).toBe(first.id);
    expect((await liveOrganizations('beacon')).map((r) => r.aliases)).toEqual([expect.arrayContaining(['Beacon Capital'])]);
  });

  it('with two candidates ("Acme Corp" and "Acme Inc") it creates the entity and merges nothing silently', async () => {
    const corp = await insertEntity(stack.deps.pool, { namespace: 'two', name: 'Acme Corp', type: 'organization' });
    const inc = await insertEntity(stack.deps.pool, { namespace: 'two', name: 'Acme Inc', type: 'organization' });
    const acme = await organization('two', 'Maria works at Acme.', 'Acme');
    expect([corp, inc]).not.toContain(acme.id);
    const rows = await liveOrganizations('two');
    expect(rows.map((r) => r.name)).toEqual(['Acme', 'Acme Corp', 'Acme Inc']);
    expect(rows.every((r) => r.aliases.length === 0)).toBe(true);
  });

  it('another type or another namespace is not merged', async () => {
    const product = await insertEntity(stack.deps.pool, { namespace: 'typed', name: 'Acme Corp', type: 'product' });
    const org = await organization('typed', 'Maria works at Acme.', 'Acme');
    expect(org.id).not.toBe(product);
    expect(org.type).toBe('organization');

    const elsewhere = await organization('acme-elsewhere', 'Maria works at Acme.', 'Acme');
    const original = (await liveOrganizations('acme'))[0];
    expect(elsewhere.id).not.toBe(original.id);
  });

  it('GET /v1/memories/:id?expand=facts returns the facts and entities as full objects', async () => {
    const { id } = await remember(stack, { namespace: 'shape', content: 'Stefan works at Premex.', occurred_at: '2026-01-10T09:00:00Z' });
    const plain = await stack.request<Record<string, unknown>>('GET', `/v1/memories/${id}`);
    expect(plain.body).not.toHaveProperty('facts');
    const body = await expanded(id);
    expect(body.facts.map((f) => f.id).sort()).toEqual([...body.fact_ids].sort());
    expect(body.entities.map((e) => e.id).sort()).toEqual([...body.entity_ids].sort());
    expect(body.facts[0]).toMatchObject({
      fact_text: 'Stefan works at Premex.',
      predicate: 'works_at',
      subject: { name: 'Stefan' },
      object: { name: 'Premex' },
      value: null,
      valid_from: '2026-01-10T09:00:00.000Z',
      invalid_at: null,
      relations: ['created'],
    });
    expect(typeof body.facts[0].confidence).toBe('number');
    expect(body.entities).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Stefan', type: 'person', aliases: expect.any(Array) }),
        expect.objectContaining({ name: 'Premex', type: 'organization' }),
      ]),
    );
    const bad = await stack.request<{ error: { code: string } }>('GET', `/v1/memories/${id}?expand=everything`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_input');
  });
});

describe('the base-name rule (pure)', () => {
  const e = (id: string, name: string, type = 'organization', aliases: string[] = []) => ({ id, name, type, aliases });
  it('one fitting candidate matches; several are ambiguous; type must agree', () => {
    expect(baseKeys(['Acme Corp.', 'Beacon Capital GmbH'])).toEqual(['acme', 'beacon']);
    expect(decideByBaseName({ name: 'Acme', type: 'organization', aliases: [] }, [e('1', 'Acme Corp')])).toEqual({ kind: 'match', id: '1' });
    expect(decideByBaseName({ name: 'Acme', type: 'organization', aliases: [] }, [e('1', 'Acme Corp'), e('2', 'Acme Inc')])).toEqual({ kind: 'ambiguous', ids: ['1', '2'] });
    expect(decideByBaseName({ name: 'Acme', type: 'organization', aliases: [] }, [e('1', 'Acme Corp', 'product')])).toEqual({ kind: 'none' });
    expect(decideByBaseName({ name: 'Acme', type: 'organization', aliases: [] }, [e('1', 'Acme Robotics')])).toEqual({ kind: 'none' });
    expect(decideByBaseName({ name: 'Acme', type: 'organization', aliases: [] }, [e('1', 'Initech', 'organization', ['Acme Ltd'])])).toEqual({ kind: 'match', id: '1' });
  });
});
