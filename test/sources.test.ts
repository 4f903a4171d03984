import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { authoredBody } from '../core/sources/emailBody.js';
import { jsonDocument, recordTriples } from '../core/sources/json.js';
import { isPublicMailDomain, organizationNameOf } from '../core/sources/publicMailDomains.js';
import { remember, startTestStack, waitForStatus, type TestStack } from './support/stack.js';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'sources');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');

interface ErrorBody {
  error: { code: string; message: string; details: Array<{ field: string; message: string }> | null };
}

interface EntityRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
}

interface FactRow {
  id: string;
  subject: string;
  predicate: string;
  object: string | null;
  value: string | null;
  fact_text: string;
  confidence: number;
  valid_from: string | null;
  invalid_at: string | null;
  confirmation_count: number;
}

describe('sources: email, calendar events and JSON triples', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function entitiesOf(namespace: string): Promise<EntityRow[]> {
    const { rows } = await stack.deps.pool.query<EntityRow>(
      'SELECT id, name, type, aliases FROM entity WHERE namespace = $1 AND merged_into IS NULL ORDER BY name',
      [namespace],
    );
    return rows;
  }

  /** The namespace's current facts (or, with `history`, also those superseded). */
  async function factsOf(namespace: string, history = false): Promise<FactRow[]> {
    const { rows } = await stack.deps.pool.query<FactRow>(
      `SELECT f.id, s.name AS subject, f.predicate, o.name AS object, f.value, f.fact_text, f.confidence::float8 AS confidence,
              f.valid_from::text AS valid_from, f.invalid_at::text AS invalid_at, f.confirmation_count
         FROM fact f JOIN entity s ON s.id = f.subject_id LEFT JOIN entity o ON o.id = f.object_id
        WHERE f.namespace = $1 AND (f.expired_at IS NULL OR $2) ORDER BY s.name, f.predicate, f.fact_text`,
      [namespace, history],
    );
    return rows.map((r) => ({ ...r, valid_from: iso(r.valid_from), invalid_at: iso(r.invalid_at) }));
  }

  const iso = (pgText: string | null) => (pgText === null ? null : new Date(pgText).toISOString());

  async function stageInputs(episodeId: string): Promise<Array<{ stage: string; status: string; input: { provider?: string } | null }>> {
    const { rows } = await stack.deps.pool.query<{ stage: string; status: string; input: { provider?: string } | null }>(
      'SELECT stage, status, input FROM stage_run WHERE episode_id = $1 ORDER BY started_at, stage',
      [episodeId],
    );
    return rows;
  }

  describe('email', () => {
    const ns = 'src-email';
    const eml = fixture('reply-with-cc.eml');

    it('makes one person per address, employers from company domains, and extracts only what the sender wrote', async () => {
      const done = await remember(stack, { content: eml, content_type: 'email', namespace: ns });
      expect(done.status).toBe('extracted');

      // Date → occurred_at (on the sender's clock), the sender → speaker.
      const { rows } = await stack.deps.pool.query('SELECT occurred_at, speaker, timezone, content_type FROM episode WHERE id = $1', [done.id]);
      expect(rows[0].occurred_at.toISOString()).toBe('2026-03-02T08:14:00.000Z');
      expect(rows[0]).toMatchObject({ speaker: 'Alice Martin', timezone: '+01:00', content_type: 'email' });

      const entities = await entitiesOf(ns);
      const people = entities.filter((e) => e.type === 'person');
      expect(people.map((p) => p.name).sort()).toEqual(['Alice Martin', 'Bob Chen', 'Carol Diaz', 'Dan Okafor']);
      expect(people.find((p) => p.name === 'Alice Martin')!.aliases).toContain('alice.martin@acme-labs.com');
      expect(people.find((p) => p.name === 'Carol Diaz')!.aliases).toContain('carol.diaz@gmail.com');
      const organizations = entities.filter((e) => e.type === 'organization');
      expect(organizations.map((o) => o.name).sort()).toEqual(['Acme Labs', 'Globex']); // gmail.com is a public provider
      expect(organizations.find((o) => o.name === 'Acme Labs')!.aliases).toContain('acme-labs.com');
      // Neither the quoted reply (Berlin, Initech) nor the signature (title, phone, street) was read.
      for (const e of entities) expect(e.name).not.toMatch(/Berlin|Initech|Rua Augusta|Head of Product/);

      const facts = await factsOf(ns);
      const employers = facts.filter((f) => f.predicate === 'works_at').map((f) => `${f.subject} → ${f.object}`);
      expect(employers.sort()).toEqual(['Alice Martin → Acme Labs', 'Bob Chen → Globex', 'Dan Okafor → Acme Labs']);
      // "I" in the body is the sender; each statement of the body is stored once.
      const lisbon = facts.filter((f) => f.object === 'Lisbon');
      expect(lisbon.length).toBeGreaterThan(0);
      for (const f of lisbon) expect(f.subject).toBe('Alice Martin');
      expect(new Set(lisbon.map((f) => f.predicate)).size).toBe(lisbon.length);
      expect(facts.filter((f) => f.predicate === 'works_on').map((f) => `${f.subject} → ${f.object}`)).toEqual(['Dan Okafor → Aurora project']);
      for (const f of facts) expect(f.fact_text).not.toMatch(/Berlin|Initech|Head of Product|555/);

      const stages = await stageInputs(done.id);
      expect(new Set(stages.map((s) => s.stage))).toEqual(
        new Set(['entity-extract', 'entity-resolve', 'fact-extract', 'fact-dedup', 'temporal', 'contradiction', 'commit']),
      );
      for (const s of stages) expect(s.status).toBe('succeeded');
      expect(stages.find((s) => s.stage === 'entity-extract')!.input!.provider).toBe('email');
      expect(stages.find((s) => s.stage === 'fact-extract')!.input!.provider).toBe('email');
    });

    it('the same email again adds no entity and no fact: it confirms what is stored', async () => {
      const entitiesBefore = await entitiesOf(ns);
      const factsBefore = await factsOf(ns);
      const again = await remember(stack, { content: eml, content_type: 'email', namespace: ns });
      expect(again.status).toBe('extracted');
      expect((await entitiesOf(ns)).map((e) => e.id)).toEqual(entitiesBefore.map((e) => e.id));
      const factsAfter = await factsOf(ns);
      expect(factsAfter.map((f) => f.id)).toEqual(factsBefore.map((f) => f.id));
      const employer = factsAfter.find((f) => f.subject === 'Bob Chen' && f.predicate === 'works_at')!;
      expect(employer.confirmation_count).toBeGreaterThan(factsBefore.find((f) => f.id === employer.id)!.confirmation_count);
    });
  });

  describe('calendar events', () => {
    const ns = 'src-calendar';
    const ics = fixture('launch-review.ics');
    const eventName = 'Aurora launch review (2026-03-10)';

    it('an .ics event: the event, its three attendees valid for its time, its place and organizer', async () => {
      const done = await remember(stack, { content: ics, content_type: 'calendar_event', namespace: ns });
      expect(done.status).toBe('extracted');

      const entities = await entitiesOf(ns);
      const event = entities.find((e) => e.type === 'event')!;
      expect(event.name).toBe(eventName);
      expect(event.aliases).toContain('launch-review-2026-03-10@acme-labs.com');
      // The declined invitee and the room are not attendees.
      expect(entities.map((e) => e.name)).not.toContain('Erin Walsh');
      expect(entities.map((e) => e.name)).not.toContain('Room Tejo');

      const facts = await factsOf(ns);
      const attended = facts.filter((f) => f.predicate === 'attended');
      expect(attended.map((f) => f.subject).sort()).toEqual(['Bob Chen', 'Carol Diaz', 'Dan Okafor']);
      for (const f of attended) {
        expect(f.object).toBe(eventName);
        expect(f.valid_from).toBe('2026-03-10T14:00:00.000Z');
        expect(f.invalid_at).toBe('2026-03-10T15:00:00.000Z');
      }
      expect(facts.filter((f) => f.predicate === 'located_in').map((f) => [f.subject, f.object, f.valid_from])).toEqual([
        [eventName, 'Lisbon office', '2026-03-10T14:00:00.000Z'],
      ]);
      expect(facts.filter((f) => f.predicate === 'scheduled').map((f) => [f.subject, f.object])).toEqual([['Alice Martin', eventName]]);
      expect(entities.find((e) => e.name === 'Alice Martin')!.aliases).toContain('alice.martin@acme-labs.com');

      const stages = await stageInputs(done.id);
      expect(stages.find((s) => s.stage === 'entity-extract')!.input!.provider).toBe('calendar');
    });

    it('the same event again, as .ics or as its JSON shape, confirms its facts instead of duplicating them', async () => {
      const entitiesBefore = await entitiesOf(ns);
      const factsBefore = await factsOf(ns);
      await remember(stack, { content: ics, content_type: 'calendar_event', namespace: ns });
      await remember(stack, {
        namespace: ns,
        content_type: 'calendar_event',
        content: {
          title: 'Aurora launch review',
          start: '2026-03-10T14:00:00Z',
          end: '2026-03-10T15:00:00Z',
          organizer: 'Alice Martin <alice.martin@acme-labs.com>',
          attendees: ['Bob Chen <bob@globex.io>', { name: 'Carol Diaz', email: 'carol.diaz@gmail.com' }, 'Dan Okafor <dan.okafor@acme-labs.com>'],
          location: 'Lisbon office',
        },
      });
      expect((await entitiesOf(ns)).map((e) => e.id)).toEqual(entitiesBefore.map((e) => e.id));
      const factsAfter = await factsOf(ns);
      expect(factsAfter.map((f) => f.id)).toEqual(factsBefore.map((f) => f.id));
      for (const f of factsAfter) expect(f.confirmation_count).toBe(factsBefore.find((b) => b.id === f.id)!.confirmation_count + 2);
    });
  });

  describe('JSON triples', () => {
    it('a batch of 1,000 triples becomes 1,000 facts less its repeats, validity and confidence kept', async () => {
      const ns = 'src-json';
      const distinct = Array.from({ length: 980 }, (_, i) => ({
        subject: `Person ${i}`,
        subject_type: 'person',
        predicate: i % 2 === 0 ? 'knows' : 'has_role',
        ...(i % 2 === 0 ? { object: `Contact ${i}` } : { value: `Role ${i}` }),
        ...(i % 10 === 1 ? { valid_from: '2025-01-01T00:00:00Z' } : {}),
        ...(i % 5 === 0 ? { confidence: 0.75 } : {}),
      }));
      const facts = [...distinct, ...distinct.slice(0, 20)];
      expect(facts).toHaveLength(1000);
      const res = await stack.request<{ id: string }>('POST', '/v1/memories', { namespace: ns, content_type: 'json', content: { facts } });
      expect(res.status).toBe(202);
      // One transaction of a thousand facts: slower than a chat turn, above all on embedded PGlite.
      const done = { id: res.body.id, ...(await waitForStatus(stack, res.body.id, undefined, 150_000)) };
      expect(done.status).toBe('extracted');

      const { rows } = await stack.deps.pool.query<{ n: number; with_validity: number; at_075: number; entities: number }>(
        `SELECT count(*)::int AS n,
                count(*) FILTER (WHERE valid_from = '2025-01-01T00:00:00Z')::int AS with_validity,
                count(*) FILTER (WHERE confidence = 0.75)::int AS at_075,
                (SELECT count(*)::int FROM entity WHERE namespace = $1) AS entities
           FROM fact WHERE namespace = $1 AND expired_at IS NULL`,
        [ns],
      );
      expect(rows[0]).toEqual({ n: 980, with_validity: 98, at_075: 196, entities: 980 + 490 });
      const stored = await stack.deps.pool.query<{ confidence: number; valid_from: Date; fact_text: string; value: string }>(
        `SELECT round(f.confidence::numeric, 2)::float8 AS confidence, f.valid_from, f.fact_text, f.value FROM fact f JOIN entity s ON s.id = f.subject_id
          WHERE f.namespace = $1 AND s.name = 'Person 11'`,
        [ns],
      );
      expect(stored.rows).toEqual([{ confidence: 0.9, valid_from: new Date('2025-01-01T00:00:00Z'), fact_text: 'Person 11 has role Role 11.', value: 'Role 11' }]);
      const stages = await stageInputs(done.id);
      expect(stages.find((s) => s.stage === 'fact-extract')!.input!.provider).toBe('json');
      expect(stages.filter((s) => s.status === 'succeeded')).toHaveLength(7);
    }, 180_000);

    it('a record with a declared subject is one fact per field, through the same contradiction stage', async () => {
      const ns = 'src-json-record';
      await remember(stack, {
        namespace: ns,
        content_type: 'json',
        content: { subject: 'Nadia', subject_type: 'person', record: { works_at: { object: 'Orbital' }, has_role: 'CTO', likes: ['tea', 'chess'] }, valid_from: '2024-05-01T00:00:00Z' },
      });
      // A later record moves her to another employer: the single-valued works_at is superseded, not duplicated.
      await remember(stack, {
        namespace: ns,
        content_type: 'json',
        content: JSON.stringify({ subject: 'Nadia', subject_type: 'person', record: { works_at: { object: 'Vectorly' } }, valid_from: '2025-09-01T00:00:00Z' }),
      });
      const current = await factsOf(ns);
      expect(current.map((f) => [f.predicate, f.object ?? f.value])).toEqual([
        ['has_role', 'CTO'],
        ['likes', 'chess'],
        ['likes', 'tea'],
        ['works_at', 'Vectorly'],
      ]);
      const facts = await factsOf(ns, true);
      expect(facts).toHaveLength(5);
      const orbital = facts.find((f) => f.object === 'Orbital')!;
      expect([orbital.valid_from, orbital.invalid_at]).toEqual(['2024-05-01T00:00:00.000Z', '2025-09-01T00:00:00.000Z']);
      expect(facts.find((f) => f.object === 'Vectorly')!.invalid_at).toBeNull();
      expect((await entitiesOf(ns)).find((e) => e.name === 'Orbital')!.type).toBe('organization');
    });
  });

  it('rejects invalid shapes with 400 naming each field, and writes nothing', async () => {
    const count = async () => (await stack.deps.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM episode')).rows[0].n;
    const before = await count();
    const cases: Array<{ body: unknown; field: string }> = [
      { body: { content: 'hello', content_type: 'pdf' }, field: 'content_type' },
      { body: { content: { facts: [] } }, field: 'content' }, // text is a string
      { body: { content: 'Just some words.', content_type: 'email' }, field: 'content' }, // no headers
      { body: { content: { from: 'a@b.c' }, content_type: 'email' }, field: 'content' },
      { body: { content: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n', content_type: 'calendar_event' }, field: 'content' },
      { body: { content: 'Lunch with Bob on Friday', content_type: 'calendar_event' }, field: 'content' },
      { body: { content: { title: 'Standup' }, content_type: 'calendar_event' }, field: 'content.start' },
      { body: { content: { title: 'Standup', start: '2026-03-10T10:00:00Z', end: '2026-03-10T09:00:00Z' }, content_type: 'calendar_event' }, field: 'content.end' },
      { body: { content: { title: 'Standup', start: 'tomorrow' }, content_type: 'calendar_event' }, field: 'content.start' },
      { body: { content: { title: 'Standup', start: '2026-03-10', attendees: [{ role: 'chair' }] }, content_type: 'calendar_event' }, field: 'content.attendees.0' },
      // Instants and dates PostgreSQL cannot store (year 0) are refused here, not at the database.
      { body: { content: { title: 'Standup', start: '0000-03-10T10:00:00Z' }, content_type: 'calendar_event' }, field: 'content.start' },
      { body: { content: { title: 'Standup', start: '0000-03-10' }, content_type: 'calendar_event' }, field: 'content.start' },
      { body: { content: 'not json', content_type: 'json' }, field: 'content' },
      { body: { content: { facts: [{ subject: 'A', predicate: 'Works At', value: 'x' }] }, content_type: 'json' }, field: 'content.facts.0.predicate' },
      { body: { content: { facts: [{ subject: 'A', predicate: 'knows', object: 'B', value: 'c' }] }, content_type: 'json' }, field: 'content.facts.0.object' },
      { body: { content: { facts: [{ subject: 'A', predicate: 'knows', object: 'B', confidence: 2 }] }, content_type: 'json' }, field: 'content.facts.0.confidence' },
      { body: { content: { facts: [{ subject: 'A', predicate: 'knows', object: 'B', valid_from: 'last year' }] }, content_type: 'json' }, field: 'content.facts.0.valid_from' },
      { body: { content: { facts: [{ subject: 'A', predicate: 'knows', object: 'B', valid_from: '9999-12-31T23:00:00-12:00' }] }, content_type: 'json' }, field: 'content.facts.0.valid_from' },
      { body: { content: { facts: Array.from({ length: 1001 }, () => ({ subject: 'A', predicate: 'knows', object: 'B' })) }, content_type: 'json' }, field: 'content.facts' },
      { body: { content: { subject: 'Nadia', record: {} }, content_type: 'json' }, field: 'content.record' },
      { body: { content: { subject: 'Nadia', record: { likes: 'tea' }, colour: 'red' }, content_type: 'json' }, field: 'content' },
    ];
    for (const c of cases) {
      const res = await stack.request<ErrorBody>('POST', '/v1/memories', c.body);
      expect({ body: c.body, status: res.status, code: res.body.error.code }).toEqual({ body: c.body, status: 400, code: 'invalid_input' });
      expect({ body: c.body, fields: res.body.error.details!.map((d) => d.field) }).toEqual({ body: c.body, fields: expect.arrayContaining([c.field]) });
    }
    const batch = await stack.request<ErrorBody>('POST', '/v1/memories/batch', {
      memories: [{ content: 'fine' }, { content_type: 'json', content: { facts: [{ subject: 'A', predicate: 'knows' }] } }],
    });
    expect(batch.status).toBe(400);
    expect(batch.body.error.details!.map((d) => d.field)).toContain('memories.1.content.facts.0.object');
    expect(await count()).toBe(before);
  });
});

describe('sources: reading the parts', () => {
  it('keeps only what the sender wrote: quoted replies, forwarded blocks, signatures and salutations are cut', () => {
    expect(authoredBody('Hi Bob,\n\nThe launch moved to March.\n\nOn Fri, 27 Feb 2026 at 17:02, Bob Chen\n<bob@globex.io> wrote:\n> I live in Berlin.')).toBe(
      'The launch moved to March.',
    );
    expect(authoredBody('See below.\n\n-----Original Message-----\nFrom: Bob\nI live in Berlin.')).toBe('See below.');
    expect(authoredBody('Agreed.\n\nFrom: Bob Chen <bob@globex.io>\nSent: Friday, 27 February 2026 17:02\nTo: Alice\nSubject: Plan')).toBe('Agreed.');
    expect(authoredBody('I joined Initech.\n> > older quote\nI live in Porto.\n\nThanks,\nAlice\nAlice Martin | CEO')).toBe('I joined Initech.\nI live in Porto.');
    expect(authoredBody('I moved to Lisbon.\n-- \nAlice Martin\n+351 555 0100')).toBe('I moved to Lisbon.');
    // "Thanks" opening a long message is not its sign-off.
    const long = ['Thanks!', 'I moved to Lisbon.', 'Dan works on Aurora.', 'Carol joined Globex.', 'Bob lives in Porto.', 'Erin likes tea.', 'Frank owns a boat.', 'Gia visited Rome.'];
    expect(authoredBody(long.join('\n'))).toBe(long.join('\n'));
  });

  it('names the organization of a mail domain, and knows public providers', () => {
    expect(organizationNameOf('acme-labs.com')).toBe('Acme Labs');
    expect(organizationNameOf('mail.initech.co.uk')).toBe('Initech');
    expect(isPublicMailDomain('GMAIL.com')).toBe(true);
    expect(isPublicMailDomain('proton.me')).toBe(true);
    expect(isPublicMailDomain('acme-labs.com')).toBe(false);
  });

  it('turns a record into one triple per field (one per list item), sharing its validity and confidence', () => {
    const triples = recordTriples({ subject: 'Nadia', record: { has_role: 'CTO', likes: ['tea', 'chess'], works_at: { object: 'Orbital' } }, valid_from: '2024-05-01T00:00:00Z', confidence: 0.8 });
    expect(triples.map((t) => [t.predicate, t.object ?? t.value, t.valid_from, t.confidence])).toEqual([
      ['has_role', 'CTO', '2024-05-01T00:00:00Z', 0.8],
      ['likes', 'tea', '2024-05-01T00:00:00Z', 0.8],
      ['likes', 'chess', '2024-05-01T00:00:00Z', 0.8],
      ['works_at', 'Orbital', '2024-05-01T00:00:00Z', 0.8],
    ]);
    const doc = jsonDocument(triples);
    expect(doc.entities.map((e) => [e.name, e.type])).toEqual([['Nadia', 'person'], ['Orbital', 'organization']]);
    expect(doc.facts.every((f) => f.stated_validity?.valid_from === '2024-05-01T00:00:00Z')).toBe(true);
  });
});
