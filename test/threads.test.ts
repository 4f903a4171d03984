import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { createApp } from '../api/app.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import type { ThreadMessageView, ThreadView } from '../core/threads/rows.js';
import type { ThreadWithMessages } from '../core/threads/read.js';
import type { ThreadPage } from '../core/threads/list.js';
import { ADMIN_KEY, startTestStack, type TestStack } from './support/stack.js';
import { eventually } from './support/eventually.js';
import { freePort } from '../core/embedded/ports.js';
import { spawnServiceProcess, stopProcess } from './support/workerProcess.js';

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}

/** Fast enough for a test to see several heartbeats and rounds within a second. */
const STREAM_ENV = { THREAD_POLL_INTERVAL_MS: '50', THREAD_HEARTBEAT_MS: '200' };

/** An SSE client over fetch's body stream, parsed by eventsource-parser. */
interface SseClient {
  status: number;
  contentType: string | null;
  events: EventSourceMessage[];
  comments: string[];
  /** Messages (event `message`) received so far, decoded. */
  messages(): ThreadMessageView[];
  /** Settles when the server ended the stream (or close() aborted it). */
  ended: Promise<void>;
  close(): Promise<void>;
}

async function openSse(url: string, headers: Record<string, string> = {}, key = ADMIN_KEY): Promise<SseClient> {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', ...headers }, signal: controller.signal });
  const events: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c.trim()) });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(value);
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  })();
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    events,
    comments,
    messages: () => events.filter((e) => e.event === 'message').map((e) => JSON.parse(e.data) as ThreadMessageView),
    ended: pump,
    async close() {
      controller.abort();
      await pump;
    },
  };
}

/** Waits until the stream's opening comment arrived: from then on the server delivers every later message. */
async function opened(client: SseClient): Promise<void> {
  await eventually(async () => client.comments.length, (n) => n > 0, 'the stream to open', 10_000, 20);
}

/** `npm run api` (api/main.ts) in a process of its own, on the stack's database and Temporal. */
function spawnApiProcess(stack: TestStack, port: number): ChildProcess {
  return spawnServiceProcess(
    'api/main.ts',
    stack.deps.config,
    { PORT: String(port), HOST: '127.0.0.1', MNEMO_API_KEY: ADMIN_KEY, EMBEDDING_PROVIDER: 'hash', ...STREAM_ENV },
    ['ignore', 'ignore', 'inherit'],
  );
}

describe('threads', () => {
  let stack: TestStack;
  const ns = 'threads-a';

  beforeAll(async () => {
    stack = await startTestStack({ withWorker: false, env: { EMBEDDING_PROVIDER: 'hash', ...STREAM_ENV } });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const create = (body: Record<string, unknown>, key?: string) => stack.request<ThreadView & ErrorBody>('POST', '/v1/threads', body, key);
  const post = (id: string, body: Record<string, unknown>, key?: string) =>
    stack.request<ThreadMessageView & ErrorBody>('POST', `/v1/threads/${id}/messages`, body, key);
  const show = (id: string, query = `namespace=${ns}`, key?: string) => stack.request<ThreadWithMessages & ErrorBody>('GET', `/v1/threads/${id}?${query}`, undefined, key);
  const list = (query: string, key?: string) => stack.request<ThreadPage & ErrorBody>('GET', `/v1/threads?${query}`, undefined, key);

  describe('create, post, read', () => {
    it('creates a thread, appends messages with increasing seq, and serves them back in order, paged', async () => {
      const created = await create({ title: '  Plan the migration ', participants: ['planner', 'coder', 'planner'], namespace: ns });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        namespace: ns,
        title: 'Plan the migration',
        participants: ['planner', 'coder'],
        created_by: 'key:env:MNEMO_API_KEY',
        last_message_at: null,
        last_sender: null,
        last_seq: 0,
        message_count: 0,
      });
      const id = created.body.id;
      const said = [
        { sender: 'planner', content: 'Move the tables first.' },
        { sender: 'coder', content: 'Which ones?' },
        { sender: 'user', content: 'The memory tables, please.' },
        { sender: 'planner', content: 'episode, fact and entity.' },
      ];
      const seqs: number[] = [];
      for (const message of said) {
        const res = await post(id, { ...message, namespace: ns });
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ thread_id: id, ...message });
        seqs.push(res.body.seq);
      }
      expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
      expect(new Set(seqs).size).toBe(seqs.length);

      const all = await show(id);
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ id, message_count: 4, last_sender: 'planner', last_seq: seqs[3], next_after: null });
      expect(all.body.messages.map((m) => [m.seq, m.sender, m.content])).toEqual(said.map((m, i) => [seqs[i], m.sender, m.content]));
      expect(all.body.last_message_at).toBe(all.body.messages[3].created_at);

      const first = await show(id, `namespace=${ns}&limit=3`);
      expect(first.body.messages.map((m) => m.seq)).toEqual(seqs.slice(0, 3));
      expect(first.body.next_after).toBe(seqs[2]);
      const rest = await show(id, `namespace=${ns}&limit=3&after=${first.body.next_after}`);
      expect(rest.body.messages.map((m) => m.seq)).toEqual([seqs[3]]);
      expect(rest.body.next_after).toBeNull();

      // Audited: the thread's creation and each message (by seq and sender; the content stays in the thread).
      const { rows } = await stack.deps.pool.query<{ action: string; after: { seq?: number; sender?: string } }>(
        `SELECT action, after FROM audit_log WHERE namespace = $1 AND target_type = 'thread' AND target_id = $2 ORDER BY id`,
        [ns, id],
      );
      expect(rows.map((r) => r.action)).toEqual(['thread.create', 'thread.message', 'thread.message', 'thread.message', 'thread.message']);
      expect(rows.slice(1).map((r) => [r.after.seq, r.after.sender])).toEqual(said.map((m, i) => [seqs[i], m.sender]));
    });

    it('validates bodies, senders, ids and queries', async () => {
      const bad = await create({ title: ' ', participants: [], namespace: ns, extra: 1 });
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('invalid_input');
      expect(bad.body.error.details!.map((d) => d.field).sort()).toEqual(['(body)', 'participants', 'title']);
      expect((await create({ title: 'x', participants: ['a'.repeat(201)], namespace: ns })).status).toBe(400);

      const { body: thread } = await create({ title: 'Review', participants: ['reviewer'], namespace: ns });
      const outsider = await post(thread.id, { sender: 'intruder', content: 'hi', namespace: ns });
      expect(outsider.status).toBe(400);
      expect(outsider.body.error.details).toEqual([expect.objectContaining({ field: 'sender', message: 'must be a participant of the thread (reviewer) or "user"' })]);
      const empty = await post(thread.id, { sender: 'reviewer', content: '  ', namespace: ns });
      expect(empty.status).toBe(400);
      expect(empty.body.error.details!.map((d) => d.field)).toEqual(['content']);
      expect((await post(thread.id, { sender: 'reviewer', content: 'x'.repeat(100_001), namespace: ns })).status).toBe(400);
      // Nothing refused was stored.
      expect((await show(thread.id)).body.message_count).toBe(0);

      expect((await post('00000000-0000-4000-8000-000000000000', { sender: 'user', content: 'hi', namespace: ns })).status).toBe(404);
      expect((await show('00000000-0000-4000-8000-000000000000')).status).toBe(404);
      const notUuid = await show('not-a-uuid');
      expect(notUuid.status).toBe(400);
      expect(notUuid.body.error.details!.map((d) => d.field)).toEqual(['id']);
      expect((await show(thread.id, `namespace=${ns}&after=-1`)).status).toBe(400);
      expect((await show(thread.id, `namespace=${ns}&limit=501`)).status).toBe(400);

      const waitingAlone = await list(`namespace=${ns}&waiting=true`);
      expect(waitingAlone.status).toBe(400);
      expect(waitingAlone.body.error.details!.map((d) => d.field)).toEqual(['waiting']);
      const badCursor = await list(`namespace=${ns}&cursor=bm9wZQ`);
      expect(badCursor.status).toBe(400);
      expect(badCursor.body.error.details!.map((d) => d.field)).toEqual(['cursor']);
      expect((await stack.request('GET', `/v1/threads/${thread.id}/stream?namespace=${ns}&last_event_id=abc`)).status).toBe(400);
    });

    it('lists threads by participant and finds the ones waiting for an agent, newest activity first, in pages', async () => {
      const listNs = 'threads-list';
      // Activity times are milliseconds: a pause keeps two steps from sharing one (a tie is ordered by id).
      const pause = () => new Promise((resolve) => setTimeout(resolve, 3));
      const open = async (title: string, participants: string[]) => {
        await pause();
        return (await create({ title, participants, namespace: listNs })).body.id;
      };
      const say = async (id: string, sender: string) => {
        await pause();
        expect((await post(id, { sender, content: `${sender} speaks`, namespace: listNs })).status).toBe(201);
      };
      const fresh = await open('fresh: nobody spoke yet', ['alpha', 'beta']);
      const alphaLast = await open('alpha spoke last', ['alpha', 'beta']);
      await say(alphaLast, 'beta');
      await say(alphaLast, 'alpha');
      const betaLast = await open('beta spoke last', ['alpha', 'beta']);
      await say(betaLast, 'alpha');
      await say(betaLast, 'beta');
      const userLast = await open('the person asked alpha', ['alpha']);
      await say(userLast, 'user');
      const gammaOnly = await open('not alpha', ['gamma']);
      await say(gammaOnly, 'user');

      const titles = async (query: string) => {
        const res = await list(`namespace=${listNs}&${query}`);
        expect(res.status).toBe(200);
        return res.body.threads.map((t) => t.id);
      };
      // Most recent activity first: a message moves its thread up.
      expect(await titles('')).toEqual([gammaOnly, userLast, betaLast, alphaLast, fresh]);
      expect(await titles('participant=alpha')).toEqual([userLast, betaLast, alphaLast, fresh]);
      // Waiting for alpha: alpha is in it and did not speak last (or nobody spoke yet).
      expect(await titles('participant=alpha&waiting=true')).toEqual([userLast, betaLast, fresh]);
      expect(await titles('participant=beta&waiting=1')).toEqual([alphaLast, fresh]);
      expect(await titles('participant=gamma&waiting=true')).toEqual([gammaOnly]);
      expect(await titles('participant=alpha&waiting=false')).toEqual([userLast, betaLast, alphaLast, fresh]);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: ThreadPage } = await list(`namespace=${listNs}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        expect(page.body.threads.length).toBeLessThanOrEqual(2);
        seen.push(...page.body.threads.map((t) => t.id));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual([gammaOnly, userLast, betaLast, alphaLast, fresh]);
    });

    it('scopes threads by namespace: a key of A finds none of B, streams included', async () => {
      const { body: theirs } = await create({ title: 'B only', participants: ['b-agent'], namespace: 'threads-b' });
      await post(theirs.id, { sender: 'b-agent', content: 'secret plan', namespace: 'threads-b' });
      const keyA = (await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'threads-keyed-a' })).key;
      const mine = await create({ title: 'A only', participants: ['a-agent'] }, keyA);
      expect(mine.status).toBe(201);
      expect(mine.body.namespace).toBe('threads-keyed-a');

      expect((await show(theirs.id, '', keyA)).status).toBe(404);
      expect((await post(theirs.id, { sender: 'b-agent', content: 'x' }, keyA)).status).toBe(404);
      expect((await stack.request('GET', `/v1/threads/${theirs.id}/stream`, undefined, keyA)).status).toBe(404);
      expect((await show(theirs.id, 'namespace=threads-b', keyA)).status).toBe(403);
      expect((await list('namespace=threads-b', keyA)).status).toBe(403);
      const visible = await list('', keyA);
      expect(visible.body.threads.map((t) => t.id)).toEqual([mine.body.id]);
      expect((await show(theirs.id, '', keyA)).body.error.message).toBe('Thread not found');
    });
  });

  describe('SSE streams', () => {
    let second: ChildProcess | undefined;
    let secondUrl: string;

    beforeAll(async () => {
      // A second API process on the same database: it shares nothing with this one but PostgreSQL.
      const port = await freePort();
      secondUrl = `http://127.0.0.1:${port}`;
      second = spawnApiProcess(stack, port);
      await eventually(
        () => fetch(`${secondUrl}/healthz`).then((r) => r.status, () => 0),
        (status) => status === 200,
        'the second API process to listen',
        60_000,
        200,
      );
    }, 90_000);
    afterAll(async () => {
      await stopProcess(second);
    });

    const streamUrl = (base: string, id: string, query = `namespace=${ns}`) => `${base}/v1/threads/${id}/stream?${query}`;
    const postVia = async (base: string, id: string, sender: string, content: string) => {
      const res = await fetch(`${base}/v1/threads/${id}/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ sender, content, namespace: ns }),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as ThreadMessageView;
    };

    it('delivers every message posted to either API process to streams on both, in order, with heartbeats', async () => {
      const { body: thread } = await create({ title: 'Two processes', participants: ['one', 'two'], namespace: ns });
      await postVia(stack.baseUrl, thread.id, 'one', 'before anyone listened');
      const onFirst = await openSse(streamUrl(stack.baseUrl, thread.id));
      const onSecond = await openSse(streamUrl(secondUrl, thread.id));
      try {
        expect(onFirst.status).toBe(200);
        expect(onFirst.contentType).toMatch(/^text\/event-stream/);
        expect(onSecond.status).toBe(200);
        await Promise.all([opened(onFirst), opened(onSecond)]);

        // Sequential posts alternating between the processes, then a concurrent burst on both.
        const posted: ThreadMessageView[] = [];
        for (let i = 0; i < 6; i++) posted.push(await postVia(i % 2 ? secondUrl : stack.baseUrl, thread.id, i % 2 ? 'two' : 'one', `turn ${i}`));
        posted.push(
          ...(await Promise.all(
            Array.from({ length: 14 }, (_, i) => postVia(i % 2 ? secondUrl : stack.baseUrl, thread.id, i % 2 ? 'two' : 'one', `burst ${i}`)),
          )),
        );
        const expected = posted.map((m) => m.seq).sort((a, b) => a - b);

        for (const client of [onFirst, onSecond]) {
          await eventually(async () => client.messages().length, (n) => n >= expected.length, 'every message on the stream', 15_000, 50);
          const got = client.messages();
          // Exactly the messages posted after the stream opened, each once, in seq order, with the seq as event id.
          expect(got.map((m) => m.seq)).toEqual(expected);
          expect(client.events.filter((e) => e.event === 'message').map((e) => Number(e.id))).toEqual(expected);
          expect(got.map((m) => m.content).sort()).toEqual(posted.map((m) => m.content).sort());
        }
        // What the streams delivered is what the thread holds.
        const stored = await show(thread.id);
        expect(stored.body.messages.slice(1).map((m) => m.seq)).toEqual(expected);

        await eventually(async () => [onFirst, onSecond].map((c) => c.comments.filter((t) => t === 'heartbeat').length), (n) => n.every((c) => c >= 2), 'heartbeats', 5_000, 50);
      } finally {
        await Promise.all([onFirst.close(), onSecond.close()]);
      }
    });

    it('resumes after a disconnect from Last-Event-ID with exactly the missed messages', async () => {
      const { body: thread } = await create({ title: 'Resume', participants: ['one', 'two'], namespace: ns });
      const first = await openSse(streamUrl(secondUrl, thread.id));
      await opened(first);
      const early: ThreadMessageView[] = [];
      for (let i = 0; i < 3; i++) early.push(await postVia(stack.baseUrl, thread.id, 'one', `early ${i}`));
      await eventually(async () => first.messages().length, (n) => n === 3, 'the early messages', 10_000, 50);
      const lastSeen = first.events[first.events.length - 1].id!;
      await first.close();

      // Missed while disconnected, posted through both processes.
      const missed: ThreadMessageView[] = [];
      for (let i = 0; i < 4; i++) missed.push(await postVia(i % 2 ? secondUrl : stack.baseUrl, thread.id, 'two', `missed ${i}`));

      const resumed = await openSse(streamUrl(secondUrl, thread.id), { 'last-event-id': lastSeen });
      const byQuery = await openSse(streamUrl(stack.baseUrl, thread.id, `namespace=${ns}&last_event_id=${lastSeen}`));
      try {
        for (const client of [resumed, byQuery]) {
          await eventually(async () => client.messages().length, (n) => n >= missed.length, 'the missed messages', 10_000, 50);
          expect(client.messages().map((m) => m.seq)).toEqual(missed.map((m) => m.seq));
        }
        const later = await postVia(stack.baseUrl, thread.id, 'one', 'after the resume');
        for (const client of [resumed, byQuery]) {
          await eventually(async () => client.messages().length, (n) => n >= missed.length + 1, 'the next message', 10_000, 50);
          expect(client.messages().map((m) => m.seq)).toEqual([...missed, later].map((m) => m.seq));
        }
        // Nothing arrived twice, and nothing from before the disconnect came again.
        expect(resumed.messages().some((m) => early.some((e) => e.seq === m.seq))).toBe(false);
      } finally {
        await Promise.all([resumed.close(), byQuery.close()]);
      }
    });

    it('bounds open streams per process and frees a slot when a client disconnects', async () => {
      const { body: thread } = await create({ title: 'Bounded', participants: ['one'], namespace: ns });
      const deps = { ...stack.deps, config: { ...stack.deps.config, THREAD_STREAM_MAX: 1 } };
      const server: Server = await new Promise((resolve) => {
        const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
      });
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const held = await openSse(streamUrl(base, thread.id));
        await opened(held);
        const refused = await fetch(streamUrl(base, thread.id), { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('5');
        expect(((await refused.json()) as ErrorBody).error.code).toBe('unavailable');
        // Other reads are not held up by the open stream.
        expect((await fetch(`${base}/v1/threads/${thread.id}?namespace=${ns}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).status).toBe(200);
        await held.close();
        const next = await eventually(
          async () => {
            const client = await openSse(streamUrl(base, thread.id));
            if (client.status !== 200) await client.close();
            return client;
          },
          (client) => client.status === 200,
          'a slot to free up after the disconnect',
          5_000,
          50,
        );
        await opened(next);
        const message = await postVia(base, thread.id, 'one', 'to the new stream');
        await eventually(async () => next.messages().map((m) => m.seq), (seqs) => seqs.includes(message.seq), 'the message on the new stream', 10_000, 50);
        await next.close();
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('ends its streams when an API process shuts down, and the client resumes on the other one', async () => {
      const { body: thread } = await create({ title: 'Failover', participants: ['one'], namespace: ns });
      const client = await openSse(streamUrl(secondUrl, thread.id));
      await opened(client);
      const before = await postVia(stack.baseUrl, thread.id, 'one', 'before the shutdown');
      await eventually(async () => client.messages().length, (n) => n === 1, 'the first message', 10_000, 50);

      // SIGTERM: the open stream must not hold the graceful shutdown up.
      const started = Date.now();
      const stopped = stopProcess(second);
      await client.ended;
      const endedAfter = Date.now() - started;
      await stopped;
      expect(second!.exitCode).toBe(0);
      expect(endedAfter).toBeLessThan(3_000);

      const during = await postVia(stack.baseUrl, thread.id, 'one', 'while reconnecting');
      const again = await openSse(streamUrl(stack.baseUrl, thread.id), { 'last-event-id': String(before.seq) });
      try {
        await eventually(async () => again.messages().length, (n) => n >= 1, 'the message posted during the failover', 10_000, 50);
        expect(again.messages().map((m) => m.seq)).toEqual([during.seq]);
      } finally {
        await again.close();
      }
    });
  });
});
