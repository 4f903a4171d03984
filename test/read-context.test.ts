import { jest } from '@jest/globals';
import { countTokens } from 'gpt-tokenizer';
import type { Queryable } from '../core/db/pool.js';
import { buildContext } from '../core/retrieval/context.js';
import { resolveRecipe } from '../core/retrieval/recipes.js';
import { withReadClient } from '../core/retrieval/sql.js';
import { insertEntity, insertEpisode, insertFact, type ReadApi, useReadApi } from './support/graphFixtures.js';

const NOW = new Date('2026-06-15T12:00:00Z');
const NS = 'shop';
const USER = 'customer-giulia-4812';
const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString();

interface ContextFact {
  id: string;
  fact_text: string;
  effective_confidence: number;
  freshness: string;
  decay_class: string;
}
interface ContextBody {
  text: string;
  facts: ContextFact[];
  memories: Array<{ id: string; type: string; text: string; matched_by: string[] }>;
  token_count: number;
}
interface ErrorBody {
  error: { code: string; details: Array<{ field: string }> | null };
}

describe('GET|POST /v1/context', () => {
  let api: ReadApi;
  const ids: Record<string, string> = {};

  useReadApi(NOW, async (started) => {
    api = started;
    const pool = api.deps.pool;
    const ep = async (key: string, content: string, occurredAt: string, userId = USER) => {
      ids[key] = await insertEpisode(pool, { namespace: NS, userId, content, occurredAt });
    };
    await ep('upgrade', 'Giulia upgraded to the Advanced plan and asked us to stop calling her.', daysAgo(3));
    await ep('email', 'She prefers email follow-ups, ideally in the morning.', daysAgo(3));
    await ep('invoice', 'Giulia asked why the invoice for May shows the Basic plan price.', daysAgo(40));
    await ep('weather', 'Chatted about the weather in Turin, sunny and warm.', daysAgo(10));
    await ep('card', 'Giulia renewed her loyalty card at the front desk.', daysAgo(10));
    for (let i = 0; i < 40; i++) await ep(`note${i}`, `Support note ${i}: walked Giulia through plan settings, export menu and billing page ${i}.`, daysAgo(50 + i));
    await ep('other', 'Marco upgraded his plan to Premium yesterday.', daysAgo(1), 'customer-marco-1');

    const giulia = await insertEntity(pool, { namespace: NS, name: 'Giulia', scopeUser: USER, properties: { user_id: USER } });
    const turin = await insertEntity(pool, { namespace: NS, name: 'Turin', type: 'place', scopeUser: USER });
    const marco = await insertEntity(pool, { namespace: NS, name: 'Marco', scopeUser: 'customer-marco-1', properties: { user_id: 'customer-marco-1' } });
    const clinic = await insertEntity(pool, { namespace: NS, name: 'Old Clinic', type: 'organization', scopeUser: USER, forgottenAt: daysAgo(1) });
    ids.giulia = giulia;
    const fact = async (key: string, f: Omit<Parameters<typeof insertFact>[1], 'namespace'>) => {
      ids[key] = await insertFact(pool, { namespace: NS, scopeUser: USER, ...f });
    };
    await fact('prefers', {
      subjectId: giulia, predicate: 'prefers', value: 'email follow-ups', family: 'preferences', factText: 'Giulia prefers email follow-ups.',
      confidence: 0.9, decayClass: 'fast_decay', lastConfirmedAt: daysAgo(3), episodeIds: [ids.email],
    });
    await fact('lives', {
      subjectId: giulia, predicate: 'lives_in', objectId: turin, family: 'places', factText: 'Giulia is based in Turin.',
      confidence: 0.8, decayClass: 'slow_decay', lastConfirmedAt: daysAgo(100),
    });
    await fact('advanced', {
      subjectId: giulia, predicate: 'has_plan', value: 'Advanced', factText: 'Giulia has the Advanced plan.',
      confidence: 0.95, decayClass: 'slow_decay', lastConfirmedAt: daysAgo(3), validFrom: daysAgo(3), episodeIds: [ids.upgrade],
    });
    await fact('basic', {
      subjectId: giulia, predicate: 'has_plan', value: 'Basic', factText: 'Giulia has the Basic plan.',
      confidence: 0.95, lastConfirmedAt: daysAgo(200), validFrom: daysAgo(400), invalidAt: daysAgo(3), expiredAt: daysAgo(3),
    });
    await fact('forgotten', {
      subjectId: giulia, predicate: 'has_condition', value: 'migraine', family: 'health', factText: 'Giulia has migraines.',
      confidence: 0.99, decayClass: 'permanent', forgottenAt: daysAgo(1),
    });
    // A certain, current fact whose other end was forgotten: hidden with it.
    await fact('clinic', {
      subjectId: giulia, predicate: 'patient_of', objectId: clinic, family: 'health', factText: 'Giulia is a patient of Old Clinic.',
      confidence: 0.99, decayClass: 'permanent',
    });
    // Someone else in Giulia's life, learnt in her scope.
    const chiara = await insertEntity(pool, { namespace: NS, name: 'Chiara', scopeUser: USER });
    const milan = await insertEntity(pool, { namespace: NS, name: 'Milan', type: 'place', scopeUser: USER });
    await fact('chiaraLives', {
      subjectId: chiara, predicate: 'lives_in', objectId: milan, family: 'places', factText: 'Chiara lives in Milan.',
      confidence: 0.6, decayClass: 'slow_decay', lastConfirmedAt: daysAgo(20),
    });
    await insertFact(pool, {
      namespace: NS, scopeUser: 'customer-marco-1', subjectId: marco, predicate: 'has_plan', value: 'Premium', factText: 'Marco has the Premium plan.',
      confidence: 1, decayClass: 'permanent',
    });
  });


  const get = (params: Record<string, string>) =>
    api.request<ContextBody & ErrorBody>('GET', `/v1/context?${new URLSearchParams({ namespace: NS, ...params })}`);

  it("leads with the user's current facts, most certain first, with freshness", async () => {
    const { status, body } = await get({ user_id: USER, query: 'which plan is Giulia on?' });
    expect(status).toBe(200);
    expect(body.facts.map((f) => f.id)).toEqual([ids.advanced, ids.prefers, ids.lives]);
    expect(body.facts[0]).toMatchObject({ freshness: 'confirmed 3 days ago', decay_class: 'slow_decay' });
    expect(body.facts[1].effective_confidence).toBeCloseTo(0.9 * Math.pow(0.5, 3 / 21), 3);
    // Superseded values, forgotten facts and other users' facts stay out.
    expect(body.text).not.toContain('Basic plan.');
    expect(body.text).not.toContain('migraine');
    expect(body.text).not.toContain('Old Clinic');
    expect(body.text).not.toContain('Marco');
    expect(body.text.indexOf('Giulia has the Advanced plan.')).toBeLessThan(body.text.indexOf('Giulia prefers email follow-ups.'));
    expect(body.text).toContain('confirmed 3 days ago');
    expect(body.text).toMatch(/Known facts[^\n]*\n- Giulia has the Advanced plan\./);
  });

  it("with a user id, also lists the facts of whom the query names in the user's scope, and they lead", async () => {
    const { body } = await get({ user_id: USER, query: 'Where does Chiara live?' });
    expect(body.facts[0].id).toBe(ids.chiaraLives);
    expect(body.text).toMatch(/Known facts[^\n]*\n- Chiara lives in Milan\./);
    // The user's own facts are still listed after them.
    expect(body.facts.map((f) => f.id)).toEqual(expect.arrayContaining([ids.advanced, ids.prefers, ids.lives]));
    // Named, but in another user's scope: not this user's to read.
    const other = await get({ user_id: USER, query: 'Which plan is Marco on?' });
    expect(other.body.text).not.toContain('Marco');
  });

  it("a named person's uncertain fact is not cut for the user's many certain ones", async () => {
    const pool = api.deps.pool;
    const user = 'customer-busy-1';
    const self = await insertEntity(pool, { namespace: NS, name: 'Bruno', scopeUser: user, properties: { user_id: user } });
    for (let i = 0; i < 70; i++) {
      await insertFact(pool, { namespace: NS, scopeUser: user, subjectId: self, predicate: 'likes', value: `dish ${i}`, factText: `Bruno likes dish ${i}.`, confidence: 0.95, decayClass: 'permanent' });
    }
    const sister = await insertEntity(pool, { namespace: NS, name: 'Paola', scopeUser: user });
    const home = await insertFact(pool, { namespace: NS, scopeUser: user, subjectId: sister, predicate: 'lives_in', value: 'Bari', factText: 'Paola lives in Bari.', confidence: 0.3, decayClass: 'permanent' });
    const { body } = await get({ user_id: user, query: 'Where does Paola live?' });
    expect(body.facts[0]?.id).toBe(home);
  });

  it('follows the facts with the memories most relevant to the query', async () => {
    const { body } = await get({ user_id: USER, query: 'invoice price for May' });
    expect(body.memories[0].id).toBe(ids.invoice);
    expect(body.text.indexOf('Relevant memories:')).toBeGreaterThan(body.text.indexOf('Known facts'));
    expect(body.text).toContain('Giulia asked why the invoice for May shows the Basic plan price.');
    expect(body.memories.map((m) => m.id)).not.toContain(ids.other);
  });

  it('a time in the query brings what happened then, on topic first, without embedding the query', async () => {
    const embed = jest.spyOn(api.deps.embedder, 'embed');
    try {
      const { body } = await get({ user_id: USER, query: 'How was the weather 10 days ago?' });
      const memories = body.memories.map((m) => m.id);
      expect(memories[0]).toBe(ids.weather);
      expect(body.memories[0].matched_by).toEqual(expect.arrayContaining(['keyword', 'temporal']));
      // The off-topic memory of the same day comes from the time alone, after the on-topic one.
      expect(memories).toContain(ids.card);
      expect(body.memories.find((m) => m.id === ids.card)?.matched_by).toEqual(['temporal']);
      expect(embed).not.toHaveBeenCalled();
    } finally {
      embed.mockRestore();
    }
  });

  it('stays within max_tokens as counted by the tokenizer', async () => {
    for (const maxTokens of [20, 60, 150, 1000]) {
      const { body } = await get({ user_id: USER, query: 'plan settings billing export', max_tokens: String(maxTokens) });
      expect(body.token_count).toBe(countTokens(body.text));
      expect(body.token_count).toBeLessThanOrEqual(maxTokens);
      expect(body.facts.every((f) => body.text.includes(f.fact_text))).toBe(true);
    }
    const small = await get({ user_id: USER, query: 'plan settings billing export', max_tokens: '60' });
    const large = await get({ user_id: USER, query: 'plan settings billing export', max_tokens: '1000' });
    expect(large.body.memories.length).toBeGreaterThan(small.body.memories.length);
    expect(large.body.token_count).toBeGreaterThan(300);
  });

  it('POST takes the same input as JSON', async () => {
    const { status, body } = await api.request<ContextBody>('POST', '/v1/context', { namespace: NS, user_id: USER, query: 'invoice', max_tokens: 300 });
    expect(status).toBe(200);
    expect(body.facts[0].id).toBe(ids.advanced);
    expect(body.memories[0].id).toBe(ids.invoice);
    expect(body.token_count).toBeLessThanOrEqual(300);
  });

  it("reads its memories' standing in the statement that reads the memories", async () => {
    const statements: string[] = [];
    const recording = (db: Queryable): Queryable => ({
      query: ((text: string, values?: unknown[]) => {
        statements.push(text);
        return db.query(text, values);
      }) as Queryable['query'],
    });
    const scope = { namespace: NS, userId: USER, now: NOW, includeForgotten: false };
    const build = (query?: string) =>
      withReadClient(api.deps.readPool, (db) => buildContext(recording(db), api.deps.embedder, scope, { query, maxTokens: 1000, recipe: resolveRecipe(undefined, 'context') }));
    // What a memory stated is read from fact_episode with the episode's own invalidations left out ("fact_episode own").
    const standingReads = () => statements.filter((s) => s.includes('fact_episode own'));

    const withQuery = await build('Why does the invoice show the Basic plan?');
    expect(withQuery.memories.length).toBeGreaterThan(0);
    // The facts, the query words' statistics, the signals, and the memories with their standing.
    expect(statements).toHaveLength(4);
    expect(standingReads()).toHaveLength(1);
    expect(standingReads()[0]).toContain("'episode' AS kind");

    statements.length = 0;
    const recent = await build();
    expect(recent.memories.length).toBeGreaterThan(0);
    // The facts, and the recent memories with their standing.
    expect(statements).toHaveLength(2);
    expect(standingReads()).toHaveLength(1);
  });

  it('without a query shows the most recent memories', async () => {
    const { body } = await get({ user_id: USER });
    expect([ids.upgrade, ids.email]).toContain(body.memories[0].id);
    expect(body.memories[0].matched_by).toEqual(['recency']);
    expect(body.memories.map((m) => m.id)).not.toContain(ids.other);
  });

  it('as_of shows what was current then', async () => {
    const { body } = await get({ user_id: USER, query: 'plan', as_of: new Date(NOW.getTime() - 30 * 86_400_000).toISOString() });
    expect(body.facts.map((f) => f.id)).toContain(ids.basic);
    expect(body.facts.map((f) => f.id)).not.toContain(ids.advanced);
  });

  it('without a user id, leads with the facts of the entities the query names', async () => {
    const { body } = await get({ query: 'What do we know about Giulia?' });
    expect(body.facts.map((f) => f.id)).toEqual(expect.arrayContaining([ids.advanced, ids.prefers]));
  });

  it.each([
    [{ max_tokens: '0' }, 'max_tokens'],
    [{ max_tokens: 'lots' }, 'max_tokens'],
    [{ as_of: 'last tuesday' }, 'as_of'],
    [{ query: '' }, 'query'],
    [{ recipe: 'nope' }, 'recipe'],
    [{ bogus: '1' }, '(body)'],
  ])('400 for %j', async (params, field) => {
    const { status, body } = await get(params as Record<string, string>);
    expect(status).toBe(400);
    expect((body.error.details ?? []).map((d) => d.field)).toContain(field);
  });
});
