import * as chrono from 'chrono-node';
import { findTimeExpressions, mayNameATime, pointsAhead, resolveFactTimes, resolveTimePhrase, resolveTimeRange } from '../core/domain/temporal.js';
import { parseTimeWindow } from '../core/retrieval/timeWindow.js';

const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : iso);

describe('resolveTimePhrase', () => {
  const ref = '2026-02-01T10:00:00Z';

  it.each([
    // phrase, expected date, precision, role
    ['last month', '2026-01-01', 'month', 'point'],
    ['since March', '2025-03-01', 'month', 'start'], // "since" points back: last March, not next
    ['in March', '2026-03-01', 'month', 'point'],
    ['until 2025', '2025-01-01', 'year', 'end'],
    ['in 2023', '2023-01-01', 'year', 'point'],
    ['since 2018', '2018-01-01', 'year', 'start'],
    ['this year', '2026-01-01', 'year', 'point'],
    ['last year', '2025-01-01', 'year', 'point'],
    ['two weeks ago', '2026-01-18', 'day', 'point'],
    ['3 years ago', '2023-02-01', 'day', 'point'],
    ['yesterday', '2026-01-31', 'day', 'point'],
    ['for 3 years', '2023-02-01', 'day', 'start'],
    ['for the past two months', '2025-12-01', 'day', 'start'],
    ['last summer', '2025-06-01', 'month', 'point'],
    ['in May 2024', '2024-05-01', 'month', 'point'],
    ['March 3, 1990', '1990-03-03', 'day', 'point'],
    ['back in 2019', '2019-01-01', 'year', 'point'],
  ])('%s (said 2026-02-01) → %s', (phrase, date, precision, role) => {
    const r = resolveTimePhrase(phrase, ref);
    expect(r).not.toBeNull();
    expect(day(r?.date.toISOString())).toBe(date);
    expect(r?.precision).toBe(precision);
    expect(r?.role).toBe(role);
  });

  it('"last May" is the most recent May strictly before the reference month', () => {
    expect(day(resolveTimePhrase('last May', '2026-02-01T00:00:00Z')?.date.toISOString())).toBe('2025-05-01');
    expect(day(resolveTimePhrase('last May', '2026-06-15T00:00:00Z')?.date.toISOString())).toBe('2026-05-01');
    expect(day(resolveTimePhrase('last May', '2026-05-20T00:00:00Z')?.date.toISOString())).toBe('2025-05-01');
    expect(day(resolveTimePhrase('next May', '2026-02-01T00:00:00Z')?.date.toISOString())).toBe('2026-05-01');
    expect(day(resolveTimePhrase('this May', '2026-08-01T00:00:00Z')?.date.toISOString())).toBe('2026-05-01');
  });

  it('works in UTC whatever the reference time of day', () => {
    // 23:30 UTC on Jan 31: "yesterday" is Jan 30 in UTC, whatever TZ the process runs in.
    expect(day(resolveTimePhrase('yesterday', '2026-01-31T23:30:00Z')?.date.toISOString())).toBe('2026-01-30');
    expect(resolveTimePhrase('last month', '2026-06-15T23:59:59Z')?.date.toISOString()).toBe('2026-05-01T00:00:00.000Z');
  });

  it('returns null for phrases that name no time', () => {
    expect(resolveTimePhrase('lately', ref)).toBeNull();
    expect(resolveTimePhrase('now', ref)).toBeNull();
    expect(resolveTimePhrase('the plan', ref)).toBeNull();
  });
});

describe('resolveFactTimes', () => {
  const semantic = { negated: false, memory_kind: 'semantic' as const };

  it('asserted facts start at occurredAt when the text names no time', () => {
    expect(resolveFactTimes({ ...semantic, time_expression: null }, '2026-03-01T08:30:00Z')).toEqual({
      valid_from: '2026-03-01T08:30:00.000Z',
      invalid_at: null,
    });
  });

  it('negated facts end at occurredAt when the text names no time', () => {
    expect(resolveFactTimes({ negated: true, memory_kind: 'semantic', time_expression: null }, '2026-03-01T00:00:00Z')).toEqual({
      valid_from: null,
      invalid_at: '2026-03-01T00:00:00.000Z',
    });
  });

  it('"last month" starts the state at the 1st of that month', () => {
    expect(resolveFactTimes({ ...semantic, time_expression: 'last month' }, '2026-06-15T00:00:00Z')).toEqual({
      valid_from: '2026-05-01T00:00:00.000Z',
      invalid_at: null,
    });
  });

  it('"left X last May" ends the relation then', () => {
    expect(resolveFactTimes({ negated: true, memory_kind: 'semantic', time_expression: 'last May' }, '2026-02-01T00:00:00Z')).toEqual({
      valid_from: null,
      invalid_at: '2025-05-01T00:00:00.000Z',
    });
  });

  it('a state told in the simple past at a point in time (held_then) held within that period, and ended by the telling', () => {
    const held = { negated: true, held_then: true, memory_kind: 'semantic' as const };
    expect(resolveFactTimes({ ...held, time_expression: 'in 2010' }, '2026-02-01T00:00:00Z')).toEqual({
      valid_from: '2010-01-01T00:00:00.000Z',
      invalid_at: '2011-01-01T00:00:00.000Z',
    });
    expect(resolveFactTimes({ ...held, time_expression: 'last May' }, '2026-02-01T00:00:00Z')).toEqual({
      valid_from: '2025-05-01T00:00:00.000Z',
      invalid_at: '2025-06-01T00:00:00.000Z',
    });
    expect(resolveFactTimes({ ...held, time_expression: 'this year' }, '2026-02-10T00:00:00Z')).toEqual({
      valid_from: '2026-01-01T00:00:00.000Z',
      invalid_at: '2026-02-10T00:00:00.000Z',
    });
    // In the writer's calendar.
    expect(resolveFactTimes({ ...held, time_expression: 'in 2010' }, '2026-02-01T00:00:00Z', null, 'Europe/Berlin')).toEqual({
      valid_from: '2009-12-31T23:00:00.000Z',
      invalid_at: '2010-12-31T23:00:00.000Z',
    });
    // After a time: it held from then and is over by the telling ("lived in Paris after 2010" did not end in 2010).
    expect(resolveFactTimes({ ...held, time_expression: 'after 2010' }, '2026-02-01T00:00:00Z')).toEqual({
      valid_from: '2010-01-01T00:00:00.000Z',
      invalid_at: '2026-02-01T00:00:00.000Z',
    });
    // What says how long, or no time, or a time ahead, is as any negated fact: it ended by then.
    expect(resolveFactTimes({ ...held, time_expression: 'for 3 years' }, '2026-02-01T00:00:00Z')).toEqual({ valid_from: null, invalid_at: '2026-02-01T00:00:00.000Z' });
    expect(resolveFactTimes({ ...held, time_expression: null }, '2026-02-01T00:00:00Z')).toEqual({ valid_from: null, invalid_at: '2026-02-01T00:00:00.000Z' });
    // Without the mark, the same phrase ends it then, as "left X in 2010" does.
    expect(resolveFactTimes({ negated: true, memory_kind: 'semantic', time_expression: 'in 2010' }, '2026-02-01T00:00:00Z')).toEqual({ valid_from: null, invalid_at: '2010-01-01T00:00:00.000Z' });
  });

  it('"until 2025" sets invalid_at, and the state holds from now', () => {
    expect(resolveFactTimes({ ...semantic, time_expression: 'until 2025' }, '2024-06-15T00:00:00Z')).toEqual({
      valid_from: '2024-06-15T00:00:00.000Z',
      invalid_at: '2025-01-01T00:00:00.000Z',
    });
    // An end already in the past: we do not know when it started.
    expect(resolveFactTimes({ ...semantic, time_expression: 'until 2020' }, '2024-06-15T00:00:00Z')).toEqual({
      valid_from: null,
      invalid_at: '2020-01-01T00:00:00.000Z',
    });
  });

  it('"since March" said in February means last March', () => {
    expect(resolveFactTimes({ ...semantic, time_expression: 'since March' }, '2026-02-10T00:00:00Z').valid_from).toBe('2025-03-01T00:00:00.000Z');
    expect(resolveFactTimes({ ...semantic, time_expression: 'since March' }, '2026-06-10T00:00:00Z').valid_from).toBe('2026-03-01T00:00:00.000Z');
  });

  it('handles phrases chrono misses: in 2023, this year, two weeks ago, last summer', () => {
    const at = '2026-02-01T00:00:00Z';
    expect(resolveFactTimes({ ...semantic, time_expression: 'in 2023' }, at).valid_from).toBe('2023-01-01T00:00:00.000Z');
    expect(resolveFactTimes({ ...semantic, time_expression: 'this year' }, at).valid_from).toBe('2026-01-01T00:00:00.000Z');
    expect(resolveFactTimes({ ...semantic, time_expression: 'two weeks ago' }, at).valid_from).toBe('2026-01-18T00:00:00.000Z');
    expect(resolveFactTimes({ ...semantic, time_expression: 'last summer' }, at).valid_from).toBe('2025-06-01T00:00:00.000Z');
  });

  it('events are dated by the phrase, even "until"', () => {
    expect(resolveFactTimes({ negated: false, memory_kind: 'episode', time_expression: 'last May' }, '2026-02-01T00:00:00Z')).toEqual({
      valid_from: '2025-05-01T00:00:00.000Z',
      invalid_at: null,
    });
  });

  it('a duration on an ended state says how long it lasted, not when it ended', () => {
    expect(resolveFactTimes({ negated: true, memory_kind: 'semantic', time_expression: 'for 3 years' }, '2026-02-01T00:00:00Z')).toEqual({
      valid_from: null,
      invalid_at: '2026-02-01T00:00:00.000Z',
    });
  });

  it('t_valid_override wins over the text', () => {
    const override = '2020-07-04T00:00:00Z';
    expect(resolveFactTimes({ ...semantic, time_expression: 'last month' }, '2026-06-15T00:00:00Z', override)).toEqual({
      valid_from: '2020-07-04T00:00:00.000Z',
      invalid_at: null,
    });
    expect(resolveFactTimes({ ...semantic, time_expression: null }, '2026-06-15T00:00:00Z', override).valid_from).toBe('2020-07-04T00:00:00.000Z');
    // For an ended relation the override is when it ended.
    expect(resolveFactTimes({ negated: true, memory_kind: 'semantic', time_expression: 'last May' }, '2026-02-01T00:00:00Z', override)).toEqual({
      valid_from: null,
      invalid_at: '2020-07-04T00:00:00.000Z',
    });
    // A null or malformed override is ignored.
    expect(resolveFactTimes({ ...semantic, time_expression: null }, '2026-06-15T00:00:00Z', null).valid_from).toBe('2026-06-15T00:00:00.000Z');
    expect(resolveFactTimes({ ...semantic, time_expression: null }, '2026-06-15T00:00:00Z', 'not a date').valid_from).toBe('2026-06-15T00:00:00.000Z');
  });

  it('an unresolvable phrase falls back to occurredAt', () => {
    expect(resolveFactTimes({ ...semantic, time_expression: 'lately' }, '2026-06-15T00:00:00Z').valid_from).toBe('2026-06-15T00:00:00.000Z');
  });

  it('rejects an invalid occurredAt loudly', () => {
    expect(() => resolveFactTimes({ ...semantic, time_expression: null }, 'yesterday-ish')).toThrow(/invalid reference instant/);
  });

  it('is pure: same input, same output', () => {
    const input = { negated: false, memory_kind: 'semantic' as const, time_expression: 'two weeks ago' };
    expect(resolveFactTimes(input, '2026-02-01T00:00:00Z')).toEqual(resolveFactTimes(input, '2026-02-01T00:00:00Z'));
  });
});

describe('findTimeExpressions', () => {
  const texts = (s: string) => findTimeExpressions(s, '2026-02-01T00:00:00Z').map((e) => e.text);

  it('keeps the preposition that gives the phrase its role', () => {
    expect(texts('I have lived here since March')).toEqual(['since March']);
    expect(texts('until 2025 I will be there')).toEqual(['until 2025']);
    expect(texts('we met in 2023')).toEqual(['in 2023']);
    expect(texts('I started in May 2024')).toEqual(['in May 2024']);
    expect(texts('i moved here back in 2019')).toEqual(['back in 2019']);
  });

  it('finds the phrases chrono misses and the ones it finds', () => {
    expect(texts('I left Google last May to join Anthropic')).toEqual(['last May']);
    expect(texts('She joined Beacon Capital last month.')).toEqual(['last month']);
    expect(texts('two weeks ago I quit')).toEqual(['two weeks ago']);
    expect(texts('last summer we went to Rome')).toEqual(['last summer']);
    expect(texts('I have worked there for 3 years')).toEqual(['for 3 years']);
    expect(texts('April, I met John in Paris.')).toEqual(['April']);
  });

  it('ignores "now", clock times and the modal "may"', () => {
    expect(texts('Stefan left Premex and now works at Acme.')).toEqual([]);
    expect(texts('see you at 5')).toEqual([]);
    expect(texts('I may go there')).toEqual([]);
    expect(texts('I think it may be good')).toEqual([]);
    expect(texts("c'mon, the sun is out and I sat down")).toEqual([]);
  });

  it('takes a range as one phrase with both ends', () => {
    expect(texts('I worked at Initech from 2019 to 2021.')).toEqual(['from 2019 to 2021']);
    expect(texts('I lived in Porto between March and May')).toEqual(['between March and May']);
    expect(texts('From June 2020 until March 2022 I was in Oslo')).toEqual(['From June 2020 until March 2022']);
    expect(texts('we were there from 2019-2021')).toEqual(['from 2019-2021']);
  });

  it('finds casual days, short weekdays and times counted in hours or minutes', () => {
    expect(texts("I'll meet Ana tomorrow")).toEqual(['tomorrow']);
    expect(texts("we'll talk tmrw")).toEqual(['tmrw']);
    expect(texts('see you next tue')).toEqual(['next tue']);
    expect(texts('the movers come in 3 hours')).toEqual(['in 3 hours']);
  });

  it('reports offsets into the text', () => {
    const [e] = findTimeExpressions('Alice joined last month.', '2026-02-01T00:00:00Z');
    expect('Alice joined last month.'.slice(e.index, e.index + e.text.length)).toBe('last month');
  });
});

describe('time ranges', () => {
  const at = '2026-05-01T10:00:00Z';
  const range = (phrase: string) => {
    const r = resolveTimeRange(phrase, at);
    return r && [day(r.start.toISOString()), day(r.end.toISOString())];
  };

  it('runs from the start of the first period through the end of the second', () => {
    expect(range('from 2019 to 2021')).toEqual(['2019-01-01', '2022-01-01']);
    expect(range('between March and May')).toEqual(['2026-03-01', '2026-06-01']);
    expect(range('from June 2020 until March 2022')).toEqual(['2020-06-01', '2022-04-01']);
    expect(range('From 2019-2021.')).toEqual(['2019-01-01', '2022-01-01']);
  });

  it("ends at the writer's local midnight after the last period, daylight saving included", () => {
    const oslo = resolveTimeRange('between March and May', at, 'Europe/Oslo');
    expect(oslo).toEqual({ start: new Date('2026-02-28T23:00:00.000Z'), end: new Date('2026-05-31T22:00:00.000Z') });
    expect(resolveTimeRange('from November to February', at, 'Europe/Oslo')?.end).toEqual(new Date('2026-02-28T23:00:00.000Z'));
  });

  it('an end month without its year that would come first is the next one; a backwards range is none', () => {
    expect(range('from November to February')).toEqual(['2025-11-01', '2026-03-01']);
    expect(range('from 2021 to 2019')).toBeNull();
    expect(range('since 2019')).toBeNull();
    expect(range('in 2019 and 2021')).toBeNull();
  });

  it('gives a fact both ends, said as a past state (negated) or as a state', () => {
    expect(resolveFactTimes({ negated: true, time_expression: 'from 2019 to 2021', memory_kind: 'semantic' }, at)).toEqual({
      valid_from: '2019-01-01T00:00:00.000Z',
      invalid_at: '2022-01-01T00:00:00.000Z',
    });
    expect(resolveFactTimes({ negated: false, time_expression: 'between March and May', memory_kind: 'semantic' }, at)).toEqual({
      valid_from: '2026-03-01T00:00:00.000Z',
      invalid_at: '2026-06-01T00:00:00.000Z',
    });
    // An event is dated by its start, as before.
    expect(resolveFactTimes({ negated: false, time_expression: 'from 2019 to 2021', memory_kind: 'episode' }, at).invalid_at).toBeNull();
  });
});

describe('mayNameATime', () => {
  // What people write, chrono's English vocabulary included: each inside a sentence, as the gate sees it.
  const phrases = [
    'now', 'today', 'tonight', 'tomorrow', 'tmr', 'tmrw', 'yesterday', 'last night', 'overmorrow', 'this morning',
    'this afternoon', 'this evening', 'noon', 'midnight', 'noon tomorrow', 'later today', 'the day after tomorrow',
    'the day before yesterday', 'on sun', 'next mon', 'on tue', 'next tues', 'last wed', 'on thu', 'next thur',
    'on thurs', 'next fri', 'last sat', 'last sunday', 'next week', 'last week', 'this week', 'next weekend',
    'this weekend', 'a week from now', 'next month', 'next year', 'last quarter', 'this qtr', 'an hour ago',
    '2 hours ago', '5 minutes ago', '2 mins later', 'in 3 hours', 'in an hour', 'in a minute', 'an hour later',
    'a day later', 'in 2 days', 'within a day', 'few hours ago', 'couple of hours ago', 'mid-june', 'in Sept',
    'on 8 May, 2023', 'back in 2019', 'last summer', 'two decades ago', '3/4', 'at 5pm',
  ];
  const sentence = (phrase: string) => `we met Ana ${phrase} at the cafe`;
  const ref = new Date('2026-11-20T10:00:00Z');

  it('lets through every sentence chrono finds a time in', () => {
    const found = phrases.filter((p) => chrono.parse(sentence(p), { instant: ref, timezone: 'UTC' }).length > 0);
    expect(found.length).toBeGreaterThan(50); // the list exercises chrono, not only the gate
    expect(found.filter((p) => !mayNameATime(sentence(p)))).toEqual([]);
  });

  it('stops text that names no time; the read path finds no window in it', () => {
    for (const text of ['where does Ana work', 'What did Noah Baker and Michael do together?', 'Stark Group Phoenix project status']) {
      expect(mayNameATime(text)).toBe(false);
      expect(parseTimeWindow(text, ref)).toBeNull();
    }
    expect(parseTimeWindow('what did Ana do tomorrow', ref)?.start.toISOString()).toBe('2026-11-21T00:00:00.000Z');
  });
});

describe('pointsAhead', () => {
  const at = '2026-11-20T10:00:00Z'; // a Friday
  const ahead = ['tomorrow', 'Tomorrow', 'tmrw', 'tonight', 'next week', 'next mon', 'the coming weekend', 'in 3 days', 'in a few weeks', 'within two months', 'on Monday', 'this Sunday'];
  const notAhead = ['yesterday', 'last week', '3 days ago', 'since March', 'as of next to nothing', 'in March', 'Friday', 'on Mondays', 'this week', 'today', 'in 2019', 'for 3 years'];

  it('reads the phrases that point after the telling from their words', () => {
    expect(ahead.filter((p) => !pointsAhead(p))).toEqual([]);
    expect(notAhead.filter((p) => pointsAhead(p))).toEqual([]);
  });

  it('agrees with chrono: each phrase it calls ahead resolves after the moment it was said ("tonight" to its day)', () => {
    const sameDay = ['tonight'];
    for (const phrase of ahead) {
      const resolved = resolveTimePhrase(phrase, at);
      const after = resolved !== null && (sameDay.includes(phrase) ? resolved.date.toISOString() === '2026-11-20T00:00:00.000Z' : resolved.date.getTime() > new Date(at).getTime());
      expect({ phrase, after }).toEqual({ phrase, after: true });
    }
  });
});
