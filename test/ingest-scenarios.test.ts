import { remember, startTestStack, type TestStack } from './support/stack.js';

interface FactJson {
  id: string;
  subject: { id: string; name: string; type: string };
  predicate: string;
  family: string;
  object: { id: string; name: string; type: string } | null;
  value: string | null;
  fact_text: string;
  memory_kind: string;
  valid_from: string | null;
  invalid_at: string | null;
  invalidated_by: string | null;
  expired_at: string | null;
  decay_class: string;
  confidence: number;
  effective_confidence: number;
  last_confirmed_at: string;
  source: string;
  sensitivity: string;
  episode_ids: string[];
}

describe('ingestEpisode acceptance scenarios (heuristic provider, real Temporal + Postgres)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function facts(namespace: string, query: Record<string, string> = {}): Promise<FactJson[]> {
    const qs = new URLSearchParams({ namespace, ...query }).toString();
    const res = await stack.request<{ facts: FactJson[] }>('GET', `/v1/facts?${qs}`);
    expect(res.status).toBe(200);
    return res.body.facts;
  }
  const target = (f: FactJson) => f.object?.name ?? f.value;
  const find = (list: FactJson[], predicate: string, object: string) =>
    list.find((f) => f.predicate === predicate && target(f)?.toLowerCase() === object.toLowerCase());

  it('1: a new employer supersedes the old one, and time travel finds the old one', async () => {
    const ns = 'scenario-1';
    const first = await remember(stack, { namespace: ns, content: 'Stefan works at Premex.', occurred_at: '2026-01-10T09:00:00Z' });
    expect(first.status).toBe('extracted');
    const second = await remember(stack, { namespace: ns, content: 'Stefan left Premex and now works at Acme.', occurred_at: '2026-03-01T09:00:00Z' });
    expect(second.status).toBe('extracted');

    const active = await facts(ns, { subject: 'stefan', predicate: 'works_at' });
    expect(active.map(target)).toEqual(['Acme']);
    const acme = active[0];
    expect(acme.valid_from).toBe('2026-03-01T09:00:00.000Z');
    expect(acme.family).toBe('work');
    expect(acme.decay_class).toBe('slow_decay');

    const history = await facts(ns, { subject: 'Stefan', predicate: 'works_at', include_invalidated: 'true' });
    const premex = find(history, 'works_at', 'Premex');
    expect(premex).toBeDefined();
    expect(premex!.invalid_at).toBe('2026-03-01T09:00:00.000Z');
    expect(premex!.invalidated_by).toBe(acme.id);
    expect(premex!.expired_at).not.toBeNull();

    const past = await facts(ns, { subject: 'Stefan', predicate: 'works_at', as_of: '2026-02-01T00:00:00Z' });
    expect(past.map(target)).toEqual(['Premex']);
  });

  it('2: a customer note yields typed entities and facts in the right families', async () => {
    const ns = 'scenario-2';
    const done = await remember(stack, {
      namespace: ns,
      user_id: 'customer-giulia-4812',
      content: 'Giulia upgraded to the Advanced plan and asked us to stop calling her. She prefers email follow-ups. She is based in Turin.',
    });
    expect(done.status).toBe('extracted');
    const entities = await stack.deps.pool.query<{ name: string; type: string }>('SELECT name, type FROM entity WHERE namespace = $1', [ns]);
    expect(entities.rows).toEqual(expect.arrayContaining([{ name: 'Giulia', type: 'person' }, { name: 'Turin', type: 'place' }]));

    const all = await facts(ns, { subject: 'Giulia', user_id: 'customer-giulia-4812' });
    const plan = find(all, 'has_plan', 'Advanced');
    expect(plan?.family).toBe('other');
    const lives = find(all, 'lives_in', 'Turin');
    expect(lives?.family).toBe('places');
    const prefers = all.find((f) => f.predicate === 'prefers' && /email/i.test(target(f) ?? ''));
    expect(prefers?.family).toBe('preferences');
    expect(prefers?.decay_class).toBe('fast_decay');
    for (const f of all) {
      expect(f.source).toContain(`episode:${done.id}`);
      expect(f.confidence).toBeCloseTo(0.7, 5);
      expect(f.episode_ids).toContain(done.id);
    }
  });

  it('3: "The CEO" moves; the newer city wins, both stay in history', async () => {
    const ns = 'scenario-3';
    await remember(stack, { namespace: ns, content: 'The CEO lives in Kitchener.', occurred_at: '2026-04-01T10:00:00Z' });
    await remember(stack, { namespace: ns, content: 'The CEO lives in Toronto.', occurred_at: '2026-05-01T10:00:00Z' });
    const active = await facts(ns, { subject: 'The CEO', predicate: 'lives_in' });
    expect(active.map(target)).toEqual(['Toronto']);
    expect(active[0].subject.name).toBe('CEO');
    const history = await facts(ns, { subject: 'ceo', predicate: 'lives_in', include_invalidated: 'true' });
    expect(history.map(target).sort()).toEqual(['Kitchener', 'Toronto']);
    const kitchener = find(history, 'lives_in', 'Kitchener')!;
    expect(kitchener.invalid_at).toBe('2026-05-01T10:00:00.000Z');
    expect(kitchener.invalidated_by).toBe(active[0].id);
  });

  it('4: a price change forms a validity chain', async () => {
    const ns = 'scenario-4';
    await remember(stack, { namespace: ns, content: 'The Aurora plan costs 40 euro per month.', occurred_at: '2026-05-18T00:00:00Z' });
    await remember(stack, { namespace: ns, content: 'The Aurora plan costs 50 euro per month.', occurred_at: '2026-06-07T00:00:00Z' });
    const chain = await facts(ns, { subject: 'the Aurora plan', predicate: 'costs', include_invalidated: 'true' });
    const forty = chain.find((f) => f.value?.startsWith('40'));
    const fifty = chain.find((f) => f.value?.startsWith('50'));
    expect(forty).toMatchObject({ valid_from: '2026-05-18T00:00:00.000Z', invalid_at: '2026-06-07T00:00:00.000Z', invalidated_by: fifty?.id });
    expect(fifty).toMatchObject({ valid_from: '2026-06-07T00:00:00.000Z', invalid_at: null, family: 'financial' });
    expect(chain[0].subject.name).toBe('Aurora plan');
  });

  it('5: "isn\'t at X anymore" ends a job and "last month" dates the new one', async () => {
    const ns = 'scenario-5';
    await remember(stack, { namespace: ns, content: 'Alice works at Acme Corp.', occurred_at: '2025-01-01T00:00:00Z' });
    await remember(stack, {
      namespace: ns,
      content: "Alice isn't at Acme Corp anymore. She joined Beacon Capital last month.",
      occurred_at: '2026-06-15T12:00:00Z',
    });
    const active = await facts(ns, { subject: 'Alice', predicate: 'works_at' });
    expect(active.map(target)).toEqual(['Beacon Capital']);
    expect(active[0].valid_from?.slice(0, 7)).toBe('2026-05');
    // Read months later, "last month" would mislead: the stored fact names the month.
    expect(active[0].fact_text).toBe('Alice works at Beacon Capital as of May 2026.');
    const joined = await facts(ns, { subject: 'Alice', predicate: 'joined' });
    expect(joined.map((f) => f.fact_text)).toEqual(['Alice joined Beacon Capital in May 2026.']);
    const history = await facts(ns, { subject: 'Alice', predicate: 'works_at', include_invalidated: 'true' });
    const acme = find(history, 'works_at', 'Acme Corp')!;
    expect(acme.invalid_at).not.toBeNull();
    expect(Date.parse(acme.invalid_at!)).toBeLessThanOrEqual(Date.parse('2026-06-15T12:00:00Z'));
  });

  it('6: "I left Google last May to join Anthropic" gives the event and the new state', async () => {
    const ns = 'scenario-6';
    const done = await remember(stack, { namespace: ns, user_id: 'u1', content: 'I left Google last May to join Anthropic', occurred_at: '2026-02-01T00:00:00Z' });
    expect(done.status).toBe('extracted');
    const active = await facts(ns, { subject: 'u1', user_id: 'u1' });
    const anthropic = find(active, 'works_at', 'Anthropic');
    expect(anthropic?.memory_kind).toBe('semantic');
    expect(anthropic?.valid_from?.slice(0, 7)).toBe('2025-05');
    expect(find(active, 'works_at', 'Google')).toBeUndefined();
    const history = await facts(ns, { subject: 'u1', include_invalidated: 'true' });
    const google = find(history, 'works_at', 'Google');
    expect(google?.invalid_at?.slice(0, 7)).toBe('2025-05');
    expect(history.some((f) => f.memory_kind === 'episode')).toBe(true);
  });

  it('8: a trip said ahead is a plan, and "back from" ends it as a visit made', async () => {
    const ns = 'scenario-8';
    await remember(stack, { namespace: ns, user_id: 'sam', speaker: 'Sam', content: "I'm flying to Tokyo next Friday for the meetup.", occurred_at: '2026-11-10T10:00:00Z' });
    const planned = await facts(ns, { subject: 'Sam', predicate: 'travels_to', user_id: 'sam', as_of: '2026-11-21T12:00:00Z' });
    expect(planned.map((f) => f.fact_text)).toEqual(['Sam is traveling to Tokyo as of 20 November 2026.']);
    await remember(stack, { namespace: ns, user_id: 'sam', speaker: 'Sam', content: "I'm back from Tokyo, the meetup was great.", occurred_at: '2026-11-25T10:00:00Z' });
    expect(await facts(ns, { subject: 'Sam', predicate: 'travels_to', user_id: 'sam' })).toEqual([]);
    const history = await facts(ns, { subject: 'Sam', predicate: 'travels_to', user_id: 'sam', include_invalidated: 'true' });
    expect(history.map((f) => f.invalid_at)).toEqual(['2026-11-25T10:00:00.000Z']);
    expect((await facts(ns, { subject: 'Sam', predicate: 'visited', user_id: 'sam' })).map((f) => f.fact_text)).toEqual(['Sam visited Tokyo.']);
  });

  it('9: the return told before the plan (an import, parallel writes) still ends the trip at the return', async () => {
    const ns = 'scenario-9';
    await remember(stack, { namespace: ns, user_id: 'sam', speaker: 'Sam', content: "I'm back from Tokyo, the meetup was great.", occurred_at: '2026-11-25T10:00:00Z' });
    await remember(stack, { namespace: ns, user_id: 'sam', speaker: 'Sam', content: "I'm flying to Tokyo next Friday for the meetup.", occurred_at: '2026-11-10T10:00:00Z' });
    expect(await facts(ns, { subject: 'Sam', predicate: 'travels_to', user_id: 'sam' })).toEqual([]);
    // During the trip the plan held, until the return; so did the trip the return told of, stored first with no start.
    const during = await facts(ns, { subject: 'Sam', predicate: 'travels_to', user_id: 'sam', as_of: '2026-11-21T12:00:00Z' });
    const plan = during.find((f) => f.valid_from !== null);
    expect([plan?.fact_text, plan?.invalid_at]).toEqual(['Sam is traveling to Tokyo as of 20 November 2026.', '2026-11-25T10:00:00.000Z']);
    const told = during.find((f) => f.valid_from === null);
    expect([told?.fact_text, told?.invalid_at]).toEqual(['Sam is traveling to Tokyo.', '2026-11-25T10:00:00.000Z']);
    // A trip planned after the return is a new one, and stays planned.
    await remember(stack, { namespace: ns, user_id: 'sam', speaker: 'Sam', content: "I'm flying to Tokyo again on 3 December.", occurred_at: '2026-11-28T10:00:00Z' });
    const next = await facts(ns, { subject: 'Sam', predicate: 'travels_to', user_id: 'sam', as_of: '2026-12-04T00:00:00Z' });
    expect(next.map((f) => f.invalid_at)).toEqual([null]);
  });

  it('10: retiring supersedes the job, and a wife named later supersedes the spouse "I\'m married" left unnamed', async () => {
    const ns = 'scenario-10';
    const say = (content: string, occurred_at: string) => remember(stack, { namespace: ns, speaker: 'Rui', content, occurred_at });
    expect((await say("I'm a teacher. I'm married.", '2026-01-10T09:00:00Z')).status).toBe('extracted');
    expect((await say('I retired last month. My wife Ana is a doctor.', '2026-06-01T09:00:00Z')).status).toBe('extracted');

    const role = await facts(ns, { subject: 'Rui', predicate: 'has_role' });
    expect(role.map((f) => f.fact_text)).toEqual(['Rui retired in May 2026.']);
    const spouse = await facts(ns, { subject: 'Rui', predicate: 'married_to' });
    expect(spouse.map(target)).toEqual(['Ana']);

    const history = await facts(ns, { subject: 'Rui', include_invalidated: 'true' });
    expect(find(history, 'has_role', 'teacher')?.invalid_at).not.toBeNull();
    expect(find(history, 'married_to', "Rui's spouse")?.invalid_at).not.toBeNull();

    // One sentence, a role that ended (kept as what held until it was told, nothing stored having ended it) and the
    // one that holds: "a retired engineer".
    expect((await say('My dad is a retired engineer.', '2026-06-02T09:00:00Z')).status).toBe('extracted');
    const dad = await facts(ns, { subject: "Rui's dad", predicate: 'has_role', include_invalidated: 'true' });
    expect(dad.map((f) => [f.fact_text, f.invalid_at]).sort()).toEqual([
      ["Rui's dad is retired.", null],
      ["Rui's dad works as an engineer.", '2026-06-02T09:00:00.000Z'],
    ]);
  });

  it('11: "I worked at Acme in 2010" held in 2010, and ends neither the job held now nor the home of now', async () => {
    const ns = 'scenario-11';
    const say = (content: string, occurred_at: string) => remember(stack, { namespace: ns, speaker: 'Lea', content, occurred_at });
    expect((await say('I work at Acme. I live in Porto.', '2026-03-01T09:00:00Z')).status).toBe('extracted');
    expect((await say('I worked at Acme in 2010. I lived in Paris in 2015.', '2026-06-01T09:00:00Z')).status).toBe('extracted');

    // Now: the job and the home told in March, as they were.
    const now = await facts(ns, { subject: 'Lea' });
    expect(now.map((f) => f.fact_text).sort()).toEqual(['Lea lives in Porto.', 'Lea works at Acme.']);
    // In 2010 and 2015: what held then, said as it was told.
    const in2010 = await facts(ns, { subject: 'Lea', predicate: 'works_at', as_of: '2010-07-01T00:00:00Z' });
    expect(in2010.map((f) => [f.fact_text, f.valid_from, f.invalid_at])).toEqual([['Lea worked at Acme in 2010.', '2010-01-01T00:00:00.000Z', '2011-01-01T00:00:00.000Z']]);
    const in2015 = await facts(ns, { subject: 'Lea', predicate: 'lives_in', as_of: '2015-07-01T00:00:00Z' });
    expect(in2015.map((f) => f.fact_text)).toEqual(['Lea lived in Paris in 2015.']);
    // Between them, nothing is known of her job.
    expect(await facts(ns, { subject: 'Lea', predicate: 'works_at', as_of: '2013-01-01T00:00:00Z' })).toEqual([]);
  });

  it('7: the same sentence twice is one fact confirmed twice', async () => {
    const ns = 'scenario-7';
    const a = await remember(stack, { namespace: ns, content: 'Marco lives in Milan.', occurred_at: '2026-01-01T00:00:00Z' });
    const b = await remember(stack, { namespace: ns, content: 'Marco lives in Milan.', occurred_at: '2026-02-01T00:00:00Z' });
    const list = await facts(ns, { subject: 'Marco', include_invalidated: 'true' });
    expect(list).toHaveLength(1);
    expect(list[0].last_confirmed_at).toBe('2026-02-01T00:00:00.000Z');
    expect(list[0].episode_ids.sort()).toEqual([a.id, b.id].sort());
    const entities = await stack.deps.pool.query('SELECT id FROM entity WHERE namespace = $1', [ns]);
    expect(entities.rowCount).toBe(2);
  });
});

describe('write limit (end to end)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('drops graph writes beyond 50 per episode with an audit warning', async () => {
    const names = ['Aaron', 'Bella', 'Caleb', 'Diana', 'Ethan', 'Fiona', 'Gavin', 'Hazel', 'Isaac', 'Julia', 'Kevin', 'Laura', 'Mason', 'Nora', 'Oscar', 'Paula', 'Quinn', 'Rachel', 'Simon', 'Tessa', 'Victor', 'Wendy', 'Xavier', 'Yvonne', 'Zachary', 'Amelia', 'Bruno', 'Chloe', 'Dmitri', 'Elena'];
    const cities = ['Paris', 'Berlin', 'Madrid', 'Rome', 'Vienna', 'Prague', 'Lisbon', 'Dublin', 'Oslo', 'Warsaw', 'Athens', 'Helsinki', 'Budapest', 'Zurich', 'Munich', 'Milan', 'Lyon', 'Porto', 'Seville', 'Naples', 'Krakow', 'Bergen', 'Geneva', 'Hamburg', 'Florence', 'Valencia', 'Antwerp', 'Brussels', 'Stockholm', 'Copenhagen'];
    const content = names.map((n, i) => `${n} lives in ${cities[i]}.`).join(' ');
    const done = await remember(stack, { namespace: 'write-limit', content });
    expect(done.status).toBe('extracted');
    const { rows } = await stack.deps.pool.query<{ entities: number; facts: number }>(
      `SELECT (SELECT count(*)::int FROM entity WHERE namespace = 'write-limit') AS entities,
              (SELECT count(*)::int FROM fact WHERE namespace = 'write-limit') AS facts`,
    );
    expect(rows[0].entities + rows[0].facts).toBeLessThanOrEqual(50);
    expect(rows[0].facts).toBeGreaterThan(10);
    const audit = await stack.deps.pool.query(`SELECT after FROM audit_log WHERE episode_id = $1 AND action = 'graph.write_limit_exceeded'`, [done.id]);
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0].after.limit).toBe(50);
  });
});

describe('the user\'s own entity', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('is tagged with the user id so reads can find "the user"', async () => {
    await remember(stack, { namespace: 'user-tag', user_id: 'u-42', speaker: 'Dana', content: 'I live in Porto.' });
    const { rows } = await stack.deps.pool.query(`SELECT name, properties FROM entity WHERE namespace = 'user-tag' AND type = 'person'`);
    expect(rows).toEqual([{ name: 'Dana', properties: { user_id: 'u-42' } }]);
  });
});
