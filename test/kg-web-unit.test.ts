import { csrfTokenFor, csrfTokenMatches, decodeSession, deriveSessionKeys, encodeSession, newSession, readCookie, secretMatches } from '../api/kg/session.js';
import { ENTITY_TYPES as CORE_ENTITY_TYPES } from '../core/domain/types.js';
import { historyChains, isSuperseded, objectText } from '../web/src/history.js';
import { clampDepth, readState, writeState } from '../web/src/state.js';
import { ENTITY_TYPES, type Fact } from '../web/src/types.js';

const NOW = new Date('2026-06-01T00:00:00Z');

function fact(id: string, overrides: Partial<Fact>): Fact {
  return {
    id,
    subject: { id: 's', name: 'Marta', type: 'person' },
    predicate: 'works_at',
    family: 'work',
    object: null,
    value: null,
    fact_text: `fact ${id}`,
    confidence: 0.7,
    effective_confidence: 0.6,
    decay_class: 'slow_decay',
    freshness: 'confirmed 3 days ago',
    last_confirmed_at: '2026-05-29T00:00:00Z',
    valid_from: null,
    invalid_at: null,
    recorded_at: '2026-05-01T00:00:00Z',
    expired_at: null,
    invalidated_by: null,
    source: 'test',
    sensitivity: 'internal',
    episode_ids: [],
    forgotten_at: null,
    ...overrides,
  };
}

describe('the /kg page, pure parts', () => {
  it('chains a predicate\'s history: the current value first, each superseded one linked to what replaced it, forgotten ones last', () => {
    const acme = fact('a', { object: { id: 'o1', name: 'Acme', type: 'organization' }, valid_from: '2026-01-05T00:00:00Z', invalid_at: '2026-03-10T00:00:00Z', invalidated_by: 'b' });
    const borealis = fact('b', { object: { id: 'o2', name: 'Borealis', type: 'organization' }, valid_from: '2026-03-10T00:00:00Z' });
    const older = fact('c', { value: 'Globex', valid_from: '2025-01-01T00:00:00Z', invalid_at: '2026-01-05T00:00:00Z', invalidated_by: 'a' });
    const allergy = fact('d', { predicate: 'allergic_to', value: 'peanuts' });
    const forgotten = fact('e', { value: 'Initech', valid_from: '2026-04-01T00:00:00Z', forgotten_at: '2026-05-02T00:00:00Z' });
    const chains = historyChains([acme, forgotten, older, allergy, borealis], NOW);
    expect(chains.map((c) => c.predicate)).toEqual(['allergic_to', 'works_at']);
    const works = chains[1].lines;
    expect(works.map((l) => [l.fact.id, l.superseded, l.forgotten, l.replacedBy?.id ?? null, l.replacedAt])).toEqual([
      ['b', false, false, null, null],
      ['a', true, false, 'b', '2026-03-10T00:00:00Z'],
      ['c', true, false, 'a', '2026-01-05T00:00:00Z'],
      ['e', false, true, null, null],
    ]);
    expect(objectText(works[1].replacedBy!)).toBe('Borealis');
    expect(objectText(older)).toBe('Globex');
  });

  it('counts as superseded a fact closed in world time, replaced, or retracted; not one that ends later', () => {
    expect(isSuperseded(fact('x', { invalid_at: '2026-07-01T00:00:00Z' }), NOW)).toBe(false);
    expect(isSuperseded(fact('x', { invalid_at: '2026-05-01T00:00:00Z' }), NOW)).toBe(true);
    expect(isSuperseded(fact('x', { expired_at: '2026-05-01T00:00:00Z' }), NOW)).toBe(true);
    expect(isSuperseded(fact('x', { invalidated_by: 'y', invalid_at: '2026-07-01T00:00:00Z' }), NOW)).toBe(true);
  });

  it('keeps the view, the entity and a depth of 1 to 3 in the URL', () => {
    const state = readState('?view=episodes&ns=team-a&entity=e1&depth=9&episode=ep');
    expect(state).toEqual({ view: 'episodes', namespace: 'team-a', entity: 'e1', depth: 3, q: undefined, type: undefined, episode: 'ep' });
    expect(readState(writeState(state))).toEqual(state);
    expect(readState('?view=nonsense').view).toBe('graph');
    expect([clampDepth('0'), clampDepth('2'), clampDepth('x'), clampDepth(2.7)]).toEqual([1, 2, 1, 2]);
  });

  it('offers the same entity types as the API', () => {
    expect([...ENTITY_TYPES]).toEqual([...CORE_ENTITY_TYPES]);
  });
});

describe('the /kg session cookie', () => {
  const keys = deriveSessionKeys('a-bootstrap-secret-0123456789');

  it('round-trips a signed session until it expires', () => {
    const session = newSession(NOW, 60_000);
    const token = encodeSession(keys, session);
    expect(decodeSession(keys, token, NOW)).toEqual(session);
    expect(decodeSession(keys, token, new Date(NOW.getTime() + 60_000))).toBeNull();
  });

  it('refuses a forged, altered or foreign token', () => {
    const token = encodeSession(keys, newSession(NOW, 60_000));
    const [payload, signature] = token.split('.');
    const longer = Buffer.from(JSON.stringify({ sid: 'x'.repeat(24), exp: NOW.getTime() + 10 ** 9 })).toString('base64url');
    expect(decodeSession(keys, `${longer}.${signature}`, NOW)).toBeNull();
    expect(decodeSession(keys, `${payload}.${signature}x`, NOW)).toBeNull();
    expect(decodeSession(keys, `${payload}`, NOW)).toBeNull();
    expect(decodeSession(keys, `${token}.extra`, NOW)).toBeNull();
    expect(decodeSession(deriveSessionKeys('another-secret-0123456789'), token, NOW)).toBeNull();
  });

  it('derives one CSRF token per session and checks it in constant time', () => {
    const a = newSession(NOW, 60_000);
    const b = newSession(NOW, 60_000);
    expect(csrfTokenMatches(keys, a, csrfTokenFor(keys, a))).toBe(true);
    expect(csrfTokenMatches(keys, a, csrfTokenFor(keys, b))).toBe(false);
    expect(csrfTokenMatches(keys, a, '')).toBe(false);
  });

  it('checks the secret and reads its cookie among others', () => {
    expect(secretMatches(keys, 'a-bootstrap-secret-0123456789')).toBe(true);
    expect(secretMatches(keys, 'a-bootstrap-secret-012345678')).toBe(false);
    expect(readCookie('theme=dark; mnemo_kg=abc.def; other=1', 'mnemo_kg')).toBe('abc.def');
    expect(readCookie('xmnemo_kg=abc', 'mnemo_kg')).toBeNull();
    expect(readCookie(undefined, 'mnemo_kg')).toBeNull();
  });
});
