import { resolveFactTimes, resolveTimePhrase } from '../core/domain/temporal.js';
import { formatInZone, isIanaTimeZone, offsetOfIsoInstant } from '../core/domain/timezone.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

/** Issue 24: relative dates resolve on the writer's calendar, starting at the writer's midnight. */
describe('relative dates in the writer time zone (pure)', () => {
  const at = (phrase: string, occurredAt: string, zone?: string | null) => resolveTimePhrase(phrase, occurredAt, zone)?.date.toISOString();

  it.each([
    // East of UTC, just after local midnight: the UTC date is still the day before.
    ['yesterday', '2026-03-01T00:30:00+02:00', '+02:00', '2026-02-27T22:00:00.000Z'],
    ['yesterday', '2026-03-01T00:30:00+02:00', null, '2026-02-27T00:00:00.000Z'],
    ['yesterday', '2026-02-28T23:30:00Z', 'Europe/Oslo', '2026-02-27T23:00:00.000Z'],
    // West of UTC, just before local midnight: the UTC date is already the next day.
    ['yesterday', '2026-03-02T04:30:00Z', 'America/New_York', '2026-02-28T05:00:00.000Z'],
    ['this morning', '2026-03-02T04:30:00Z', 'America/New_York', '2026-03-01T05:00:00.000Z'],
    ['last Friday', '2026-03-07T02:00:00Z', 'America/New_York', '2026-02-27T05:00:00.000Z'],
    ['in March', '2026-06-01T12:00:00Z', 'America/New_York', '2026-03-01T05:00:00.000Z'],
    // Across daylight saving: Oslo moves to +02:00 on 29 March 2026, New York to -04:00 on 8 March and back on 1 November.
    ['yesterday', '2026-03-30T00:30:00+02:00', 'Europe/Oslo', '2026-03-28T23:00:00.000Z'],
    ['today', '2026-03-30T00:30:00+02:00', 'Europe/Oslo', '2026-03-29T22:00:00.000Z'],
    ['yesterday', '2026-03-09T03:30:00Z', 'America/New_York', '2026-03-07T05:00:00.000Z'],
    ['yesterday', '2026-11-02T04:30:00Z', 'America/New_York', '2026-10-31T04:00:00.000Z'],
  ])('"%s" written at %s in %s starts at %s', (phrase, occurredAt, zone, expected) => {
    expect(at(phrase, occurredAt, zone)).toBe(expected);
  });

  it('dates a fact by the writer calendar, and keeps UTC when no zone is known', () => {
    const fact = { negated: false, memory_kind: 'semantic' as const, time_expression: 'yesterday' };
    expect(resolveFactTimes(fact, '2026-03-01T00:30:00+01:00', null, 'Europe/Oslo').valid_from).toBe('2026-02-27T23:00:00.000Z');
    expect(resolveFactTimes(fact, '2026-03-01T00:30:00+01:00').valid_from).toBe('2026-02-27T00:00:00.000Z');
  });

  it('knows IANA names and the offset an instant was written with', () => {
    expect([isIanaTimeZone('Europe/Oslo'), isIanaTimeZone('UTC'), isIanaTimeZone('Mars/Olympus'), isIanaTimeZone('+02:00')]).toEqual([true, true, false, false]);
    expect([offsetOfIsoInstant('2026-03-01T00:30:00+02:00'), offsetOfIsoInstant('2026-03-01T00:30:00-0500'), offsetOfIsoInstant('2026-03-01T00:30:00Z')]).toEqual(['+02:00', '-05:00', null]);
    expect(formatInZone(new Date('2026-03-01T00:30:00Z'), 'Europe/Oslo')).toBe('2026-03-01T01:30:00+01:00');
  });
});

describe('relative dates in the writer time zone (API, workflow, database)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  async function livesInFrom(namespace: string): Promise<string | null> {
    const res = await stack.request<{ facts: Array<{ valid_from: string | null }> }>('GET', `/v1/facts?namespace=${namespace}&subject=Oda%20Berg&predicate=lives_in`);
    expect(res.status).toBe(200);
    return res.body.facts[0]?.valid_from ?? null;
  }

  it('"Oda Berg moved to Bodø yesterday." at 00:30 +02:00 is the writer\'s yesterday (28 February), not UTC\'s', async () => {
    await remember(stack, { namespace: 'tz-offset', content: 'Oda Berg moved to Bodø yesterday.', occurred_at: '2026-03-01T00:30:00+02:00' });
    expect(await livesInFrom('tz-offset')).toBe('2026-02-27T22:00:00.000Z'); // 28 February 00:00 at +02:00
    const { rows } = await stack.deps.pool.query<{ timezone: string }>(`SELECT timezone FROM episode WHERE namespace = 'tz-offset'`);
    expect(rows).toEqual([{ timezone: '+02:00' }]);
  });

  it('an IANA timezone on the write wins, daylight saving included', async () => {
    await remember(stack, { namespace: 'tz-iana', content: 'Oda Berg moved to Bodø yesterday.', occurred_at: '2026-03-29T23:30:00Z', timezone: 'Europe/Oslo' });
    expect(await livesInFrom('tz-iana')).toBe('2026-03-28T23:00:00.000Z'); // 29 March 00:00 in Oslo, still +01:00
  });

  it('a namespace default applies to writes that give no zone; none at all is UTC', async () => {
    const patched = await stack.request<{ timezone: string }>('PATCH', '/v1/namespaces/tz-default', { timezone: 'America/New_York' });
    expect(patched).toEqual({ status: 200, body: expect.objectContaining({ namespace: 'tz-default', timezone: 'America/New_York' }) });
    await remember(stack, { namespace: 'tz-default', content: 'Oda Berg moved to Bodø yesterday.', occurred_at: '2026-03-02T04:30:00Z' });
    expect(await livesInFrom('tz-default')).toBe('2026-02-28T05:00:00.000Z'); // 1 March 23:30 in New York
    await remember(stack, { namespace: 'tz-none', content: 'Oda Berg moved to Bodø yesterday.', occurred_at: '2026-03-02T04:30:00Z' });
    expect(await livesInFrom('tz-none')).toBe('2026-03-01T00:00:00.000Z');
    const audit = await stack.deps.pool.query(`SELECT 1 FROM audit_log WHERE namespace = 'tz-default' AND action = 'namespace.updated'`);
    expect(audit.rowCount).toBe(1);
  });

  it('rejects an unknown time zone with the one error shape', async () => {
    const write = await stack.request<{ error: { code: string; details: Array<{ field: string }> } }>('POST', '/v1/memories', { content: 'x', timezone: 'Mars/Olympus' });
    expect(write.status).toBe(400);
    expect(write.body.error.details.map((d) => d.field)).toContain('timezone');
    const patch = await stack.request<{ error: { code: string } }>('PATCH', '/v1/namespaces/tz-default', { timezone: '+02:00' });
    expect([patch.status, patch.body.error.code]).toEqual([400, 'invalid_input']);
  });
});
