import { remember, startTestStack, waitForStatus, type TestStack } from './support/stack.js';
import { EMBEDDED_DATABASE } from './support/env.js';

// Issue 23 §1: many pool connections share PGlite's one session on the embedded
// default; named prepared statements, settings and transactions must stay per
// connection. Sixteen clients hammer the real read and write paths at once for a
// bounded time; every answer must be a success. The same test runs against a
// server when TEST_DATABASE_ADMIN_URL is set.

const CLIENTS = 16;
const DURATION_MS = 15_000;
/** Writes per client, so extraction can catch up within the test. */
const WRITES_PER_CLIENT = 3;
const NS = 'many-at-once';
const USERS = ['ana', 'ben'];

type Op = 'search' | 'context' | 'context-post' | 'facts' | 'entities' | 'entity' | 'write' | 'fact-write' | 'correct' | 'forget-restore';
const READS: Op[] = ['search', 'context', 'search', 'facts', 'context-post', 'entities', 'entity', 'search'];
const WRITES: Op[] = ['write', 'correct', 'fact-write', 'forget-restore'];

describe(`many clients at once (${EMBEDDED_DATABASE ? 'embedded PGlite' : 'PostgreSQL server'})`, () => {
  let stack: TestStack;
  let factIds: string[] = [];
  let entityIds: string[] = [];
  /** Seed memories each client may forget and restore (one per client, so no two clients race on the same one). */
  let ownMemories: string[] = [];

  beforeAll(async () => {
    stack = await startTestStack();
    const seeded = [];
    for (const [i, content] of [
      'Ana works at Orbital in Lisbon. Ana loves green tea.',
      'Ben moved to Berlin in March. Ben works at Premex.',
      'Ana and Ben met at the Acme Corp offsite. Ana manages the Aurora project.',
    ].entries()) {
      seeded.push(await remember(stack, { namespace: NS, user_id: USERS[i % 2], content }));
    }
    factIds = [...new Set(seeded.flatMap((m) => m.fact_ids))];
    entityIds = [...new Set(seeded.flatMap((m) => m.entity_ids))];
    const accepted = await stack.request<{ memories: Array<{ id: string }> }>('POST', '/v1/memories/batch', {
      memories: Array.from({ length: CLIENTS }, (_, i) => ({ namespace: NS, user_id: USERS[i % 2], content: `Note ${i}: ${USERS[i % 2]} booked room ${100 + i}.` })),
    });
    expect(accepted.status).toBe(202);
    ownMemories = accepted.body.memories.map((r) => r.id);
    await Promise.all(ownMemories.map((id) => waitForStatus(stack, id)));
    expect(factIds.length).toBeGreaterThan(0);
    expect(entityIds.length).toBeGreaterThan(0);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it(`answers ${CLIENTS} concurrent clients on every read and write path without an error`, async () => {
    const errors: string[] = [];
    const counts = new Map<Op, number>();
    const written: string[] = [];
    const deadline = Date.now() + DURATION_MS;

    const call = async (op: Op, method: string, path: string, body?: unknown, expected = [200]) => {
      let res;
      try {
        res = await stack.request<Record<string, unknown>>(method, path, body);
      } catch (err) {
        errors.push(`${op} ${method} ${path}: ${(err as Error).message}`);
        return null;
      }
      if (!expected.includes(res.status)) errors.push(`${op} ${method} ${path} → ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      counts.set(op, (counts.get(op) ?? 0) + 1);
      return res.body;
    };

    const runOp = async (client: number, op: Op, n: number) => {
      const user = USERS[(client + n) % USERS.length];
      const pick = <T>(xs: T[]) => xs[(client * 7 + n) % xs.length];
      switch (op) {
        case 'search':
          return call(op, 'POST', '/v1/search', { namespace: NS, query: n % 2 ? 'where does Ana work' : `Ben Berlin room ${100 + client}`, k: 10 });
        case 'context':
          return call(op, 'GET', `/v1/context?namespace=${NS}&user_id=${user}&query=${encodeURIComponent('what does she drink')}`);
        case 'context-post':
          return call(op, 'POST', '/v1/context', { namespace: NS, query: 'who manages Aurora', max_tokens: 400 });
        case 'facts':
          return call(op, 'GET', `/v1/facts?namespace=${NS}&user_id=${user}`);
        case 'entities':
          return call(op, 'GET', `/v1/entities?namespace=${NS}&q=${n % 2 ? 'Ana' : 'Orbital'}`);
        case 'entity':
          return call(op, 'GET', `/v1/entities/${pick(entityIds)}?namespace=${NS}`);
        case 'write': {
          const body = await call(op, 'POST', '/v1/memories', { namespace: NS, user_id: user, content: `Client ${client} note ${n}: ${user} visited Porto.` }, [202]);
          if (typeof body?.id === 'string') written.push(body.id);
          return body;
        }
        case 'fact-write': {
          const body = await call(op, 'POST', '/v1/facts', {
            namespace: NS,
            user_id: user,
            fact: { subject: user === 'ana' ? 'Ana' : 'Ben', predicate: 'likes', object: `color ${client}` },
          }, [202]);
          if (typeof body?.id === 'string') written.push(body.id);
          return body;
        }
        case 'correct':
          return call(op, 'PATCH', `/v1/facts/${pick(factIds)}`, { importance: ((client + n) % 10) / 10, reason: `client ${client}` });
        case 'forget-restore': {
          const id = ownMemories[client];
          await call(op, 'POST', `/v1/memories/${id}/forget`);
          return call(op, 'POST', `/v1/memories/${id}/restore`);
        }
      }
    };

    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        let writes = 0;
        for (let n = 0; Date.now() < deadline; n++) {
          // Every third step a write-path call while this client's budget lasts; reads otherwise.
          const op = n % 3 === 2 && writes < WRITES_PER_CLIENT ? WRITES[(client + writes++) % WRITES.length] : READS[(client + n) % READS.length];
          await runOp(client, op, n);
        }
      }),
    );

    expect(errors).toEqual([]);
    expect([...counts.keys()].sort()).toEqual([...new Set([...READS, ...WRITES])].sort());
    // What was written under load is extracted like anything else.
    const outcomes = await Promise.all(written.map((id) => waitForStatus(stack, id, ['extracted', 'failed', 'skipped'], 90_000)));
    expect(outcomes.filter((o) => o.status !== 'extracted')).toEqual([]);
  }, 180_000);
});
