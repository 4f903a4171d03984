import { remember, startTestStack, type TestStack } from './support/stack.js';

interface ExpandedFact { predicate: string; subject: { id: string; name: string }; object: { id: string; name: string } | null }
interface Expanded { facts: ExpandedFact[]; entities: Array<{ id: string; name: string; type: string; aliases: string[] }> }

/** Write-time resolution through the whole pipeline: people who share a first name stay apart. */
describe('one entity per thing: a shared first name does not make two people one', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  const write = async (namespace: string, content: string) => {
    const { id, status } = await remember(stack, { namespace, user_id: 'u1', content });
    expect(status).toBe('extracted');
    const res = await stack.request<Expanded>('GET', `/v1/memories/${id}?expand=facts`);
    expect(res.status).toBe(200);
    return res.body;
  };
  const people = async (namespace: string) =>
    (await stack.deps.pool.query<{ id: string; name: string }>(
      `SELECT id, name FROM entity WHERE namespace = $1 AND type = 'person' AND merged_into IS NULL ORDER BY name`,
      [namespace],
    )).rows;

  it('Aurora Lopez, met after Aurora Chen (both called "Aurora"), is her own entity and keeps her own facts', async () => {
    const ns = 'aurora-names';
    const chen = (await write(ns, 'Aurora Chen is my colleague. Aurora loves green tea.')).entities.find((e) => e.name === 'Aurora Chen');
    expect(chen?.aliases).toContain('Aurora');

    const lunch = await write(ns, 'I had lunch with Aurora Lopez yesterday; Aurora works at Globex now.');
    const lopez = lunch.entities.find((e) => e.name === 'Aurora Lopez');
    expect(lopez).toBeDefined();
    expect(lopez!.id).not.toBe(chen!.id);
    const job = lunch.facts.find((f) => f.predicate === 'works_at');
    expect(job?.subject.id).toBe(lopez!.id);
    expect(job?.object?.name).toBe('Globex');

    // Both are known as "Aurora" now; her full name still finds her, whichever the lookup lists first.
    const move = await write(ns, 'Aurora Lopez moved to Lisbon. Aurora loves it there.');
    expect(move.entities.find((e) => e.name === 'Aurora Lopez')?.id).toBe(lopez!.id);
    expect((await people(ns)).map((p) => p.name).filter((n) => n.startsWith('Aurora'))).toEqual(['Aurora Chen', 'Aurora Lopez']);
  });
});
