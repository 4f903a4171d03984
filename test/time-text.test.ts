import { anchorTimeInText } from '../core/domain/timeText.js';

describe('anchorTimeInText: a fact names its time absolutely', () => {
  it.each([
    // text, time phrase, written at, writer's zone, expected
    ['Maya left Acme Corp last month.', 'last month', '2026-06-15T09:00:00Z', null, 'Maya left Acme Corp in May 2026.'],
    ['Maya flies to Tokyo tomorrow.', 'tomorrow', '2026-11-20T09:00:00Z', null, 'Maya flies to Tokyo on 21 November 2026.'],
    ['Lena lives in Lisbon as of September.', 'in September', '2026-10-01T09:00:00Z', null, 'Lena lives in Lisbon as of September 2026.'],
    ['Ana works at Globex since last month.', 'since last month', '2026-03-10T09:00:00Z', null, 'Ana works at Globex since February 2026.'],
    ['Alice works at Beacon Capital as of last month.', 'last month', '2026-06-15T00:00:00Z', null, 'Alice works at Beacon Capital as of May 2026.'],
    ['u1 left Google last May.', 'last May', '2026-02-01T00:00:00Z', null, 'u1 left Google in May 2025.'],
    ['Oda Berg moved to Bodø yesterday.', 'yesterday', '2026-03-01T00:30:00+02:00', '+02:00', 'Oda Berg moved to Bodø on 28 February 2026.'],
    ['Yesterday Oda moved to Bodø.', 'Yesterday', '2026-03-29T23:30:00Z', 'Europe/Oslo', 'On 29 March 2026 Oda moved to Bodø.'],
    ['Sam went to Rome last summer.', 'last summer', '2026-02-01T00:00:00Z', null, 'Sam went to Rome in summer 2025.'],
    ['Sam quit three days ago.', 'three days ago', '2026-02-01T00:00:00Z', null, 'Sam quit on 29 January 2026.'],
    ['Sam quit two weeks ago.', 'two weeks ago', '2026-02-01T00:00:00Z', null, 'Sam quit in the week of 18 January 2026.'],
    ['Elise visited Morocco 2 years ago.', '2 years ago', '2024-01-15T00:00:00Z', null, 'Elise visited Morocco in 2022.'],
    ['Elise moved 3 months ago.', '3 months ago', '2024-01-15T00:00:00Z', null, 'Elise moved in October 2023.'],
    ['Sam moved last week.', 'last week', '2026-02-01T00:00:00Z', null, 'Sam moved in the week of 25 January 2026.'],
    ['Sam starts next mon.', 'next mon', '2026-11-20T10:00:00Z', null, 'Sam starts on 23 November 2026.'],
    ['Sam lives in Oslo until June.', 'until June', '2026-02-01T00:00:00Z', null, 'Sam lives in Oslo until June 2026.'],
    ['Sam left Initech last year.', 'last year', '2026-02-01T00:00:00Z', null, 'Sam left Initech in 2025.'],
  ])('%s (%s, written %s)', (text, phrase, at, zone, expected) => {
    expect(anchorTimeInText(text, phrase, at, zone)).toBe(expected);
  });

  it.each([
    ['Sam worked at Initech from 2019 to 2021.', 'from 2019 to 2021'], // has its years
    ['Sam joined in May 2024.', 'in May 2024'],
    ['Sam has lived here for 3 years.', 'for 3 years'], // a duration, not a date
    ['Sam lived in Porto between March and May.', 'between March and May'], // a range: left as said
    ['Sam went to Rome.', 'last year'], // the text does not say it
    ['Sam went to Rome.', null],
    ['Sam went to Rome at some point.', 'at some point'], // names no time
  ])('leaves %s as said (%s)', (text, phrase) => {
    expect(anchorTimeInText(text, phrase, '2026-02-01T00:00:00Z')).toBe(text);
  });

  it('matches the phrase as whole words only', () => {
    // "mon" inside "Simon" is no weekday; the phrase itself is later in the text.
    expect(anchorTimeInText('Simon met Ana next mon.', 'next mon', '2026-11-20T10:00:00Z')).toBe('Simon met Ana on 23 November 2026.');
  });
});
