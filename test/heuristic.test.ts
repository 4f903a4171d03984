import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import { resolveFactTimes } from '../core/domain/temporal.js';
import { entityExtractionSchema, factExtractionSchema, type EntityCandidate, type FactCandidate } from '../core/extraction/types.js';

/** The acceptance scenarios of the write-path issue, checked at provider level. */

const provider = new HeuristicProvider();

async function run(text: string, speaker: string | null, occurredAt: string): Promise<{ entities: EntityCandidate[]; facts: FactCandidate[] }> {
  const episode = { text, speaker, occurredAt };
  const extracted = await provider.extractEntities(episode);
  const { facts, usage } = await provider.extractFacts(episode, extracted.entities);
  expect(extracted.usage).toEqual({ modelCalls: 0, tokensIn: 0, tokensOut: 0 });
  expect(usage).toEqual({ modelCalls: 0, tokensIn: 0, tokensOut: 0 });
  // Same shapes as the model provider: the stage schemas accept the output.
  entityExtractionSchema.parse({ entities: extracted.entities });
  factExtractionSchema.parse({ facts });
  return { entities: extracted.entities, facts };
}

/** The fact texts `speaker` says at `occurredAt`, one text at a time. */
const factTexts = (speaker: string, occurredAt: string) => async (text: string) => (await run(text, speaker, occurredAt)).facts.map((f) => f.fact_text);

function entity(entities: EntityCandidate[], name: string): EntityCandidate {
  const e = entities.find((x) => x.name === name);
  if (!e) throw new Error(`no entity ${name} in ${JSON.stringify(entities)}`);
  return e;
}

function fact(facts: FactCandidate[], match: Partial<FactCandidate>): FactCandidate {
  const f = facts.find((x) => Object.entries(match).every(([k, v]) => x[k as keyof FactCandidate] === v));
  if (!f) throw new Error(`no fact ${JSON.stringify(match)} in ${JSON.stringify(facts, null, 1)}`);
  return f;
}

function times(f: FactCandidate, occurredAt: string) {
  return resolveFactTimes(f, occurredAt);
}

describe('HeuristicProvider: identity', () => {
  it('is the offline provider', () => {
    expect(provider.name).toBe('heuristic');
    expect(provider.usesNetwork).toBe(false);
  });
});

describe('scenario 1: Stefan changes employer', () => {
  it('states the first employer', async () => {
    const { entities, facts } = await run('Stefan works at Premex.', null, '2026-01-10T09:00:00Z');
    expect(entity(entities, 'Stefan').type).toBe('person');
    expect(entity(entities, 'Premex').type).toBe('organization');
    expect(entities).toHaveLength(2);
    const f = fact(facts, { subject: 'Stefan', predicate: 'works_at', object: 'Premex' });
    expect(f).toMatchObject({ family: 'work', memory_kind: 'semantic', negated: false, value: null, confidence: 0.7, time_expression: null });
    expect(f.fact_text).toBe('Stefan works at Premex.');
    expect(times(f, '2026-01-10T09:00:00Z')).toEqual({ valid_from: '2026-01-10T09:00:00.000Z', invalid_at: null });
  });

  it('ends the old job, starts the new one, and records the move as an event', async () => {
    const at = '2026-03-01T00:00:00Z';
    const { entities, facts } = await run('Stefan left Premex and now works at Acme.', null, at);
    expect(entities.map((e) => [e.name, e.type])).toEqual(expect.arrayContaining([['Stefan', 'person'], ['Premex', 'organization'], ['Acme', 'organization']]));
    const ended = fact(facts, { subject: 'Stefan', predicate: 'works_at', object: 'Premex' });
    expect(ended).toMatchObject({ negated: true, memory_kind: 'semantic' });
    expect(times(ended, at)).toEqual({ valid_from: null, invalid_at: '2026-03-01T00:00:00.000Z' });
    const current = fact(facts, { subject: 'Stefan', predicate: 'works_at', object: 'Acme' });
    expect(current).toMatchObject({ negated: false, memory_kind: 'semantic', family: 'work' });
    const event = fact(facts, { subject: 'Stefan', predicate: 'left', object: 'Premex' });
    expect(event).toMatchObject({ memory_kind: 'episode', family: 'events', negated: false });
    expect(event.fact_text).toBe('Stefan left Premex.');
  });
});

describe('scenario 2: Giulia', () => {
  const text = 'Giulia upgraded to the Advanced plan and asked us to stop calling her. She prefers email follow-ups. She is based in Turin.';

  it.each([['customer-giulia-4812'], [null]])('extracts the customer profile (speaker %s)', async (speaker) => {
    const { entities, facts } = await run(text, speaker, '2026-04-02T10:00:00Z');
    expect(entities.map((e) => [e.name, e.type])).toEqual([['Giulia', 'person'], ['Turin', 'place']]);
    const plan = fact(facts, { subject: 'Giulia', predicate: 'has_plan' });
    expect(plan).toMatchObject({ value: 'Advanced', object: null, family: 'other', memory_kind: 'semantic', negated: false });
    expect(fact(facts, { subject: 'Giulia', predicate: 'lives_in' })).toMatchObject({ object: 'Turin', family: 'places', negated: false });
    const pref = fact(facts, { subject: 'Giulia', predicate: 'prefers' });
    expect(pref).toMatchObject({ value: 'email follow-ups', object: null, family: 'preferences' });
    expect(pref.fact_text).toBe('Giulia prefers email follow-ups.');
    // "asked us to stop calling her": her = Giulia.
    expect(fact(facts, { subject: 'Giulia', predicate: 'avoids' })).toMatchObject({ value: 'phone calls', family: 'preferences' });
    // The upgrade is a transition: the event beside the state.
    expect(fact(facts, { subject: 'Giulia', predicate: 'changed_plan' })).toMatchObject({ memory_kind: 'episode', family: 'events', value: 'Advanced' });
    // No pronoun leaks into a fact sentence.
    for (const f of facts) expect(f.fact_text).not.toMatch(/\b(?:she|her|he|his|they)\b/i);
  });
});

describe('scenario 3: the CEO moves', () => {
  it.each([['Kitchener'], ['Toronto']])('The CEO lives in %s', async (city) => {
    const { entities, facts } = await run(`The CEO lives in ${city}.`, null, '2026-01-01T00:00:00Z');
    const ceo = entity(entities, 'CEO');
    expect(ceo).toEqual({ name: 'CEO', type: 'person', aliases: ['The CEO'] });
    expect(entity(entities, city).type).toBe('place');
    expect(fact(facts, { subject: 'CEO', predicate: 'lives_in', object: city })).toMatchObject({ family: 'places', memory_kind: 'semantic', negated: false });
  });
});

describe('scenario 4: the Aurora plan price', () => {
  it('names the plan and keeps the price as a value', async () => {
    const { entities, facts } = await run('The Aurora plan costs 40 euro per month.', null, '2026-05-18T00:00:00Z');
    expect(entities).toEqual([{ name: 'Aurora plan', type: 'product', aliases: ['The Aurora plan'] }]);
    const f = fact(facts, { subject: 'Aurora plan', predicate: 'costs' });
    expect(f).toMatchObject({ value: '40 euro per month', object: null, family: 'financial', memory_kind: 'semantic' });
  });
});

describe('scenario 5: Alice leaves Acme Corp for Beacon Capital', () => {
  it('first job', async () => {
    const { entities, facts } = await run('Alice works at Acme Corp.', null, '2025-01-01T00:00:00Z');
    expect(entity(entities, 'Acme Corp').type).toBe('organization');
    fact(facts, { subject: 'Alice', predicate: 'works_at', object: 'Acme Corp', negated: false });
  });

  it('negation with "anymore", pronoun "She", and "last month"', async () => {
    const at = '2026-06-15T00:00:00Z';
    const { entities, facts } = await run("Alice isn't at Acme Corp anymore. She joined Beacon Capital last month.", null, at);
    expect(entities.map((e) => [e.name, e.type])).toEqual(expect.arrayContaining([['Alice', 'person'], ['Acme Corp', 'organization'], ['Beacon Capital', 'organization']]));
    const ended = fact(facts, { subject: 'Alice', predicate: 'works_at', object: 'Acme Corp' });
    expect(ended.negated).toBe(true);
    const current = fact(facts, { subject: 'Alice', predicate: 'works_at', object: 'Beacon Capital' });
    expect(current).toMatchObject({ negated: false, memory_kind: 'semantic', time_expression: 'last month' });
    expect(times(current, at).valid_from).toBe('2026-05-01T00:00:00.000Z');
    const joined = fact(facts, { subject: 'Alice', predicate: 'joined', object: 'Beacon Capital' });
    expect(joined).toMatchObject({ memory_kind: 'episode', family: 'events', time_expression: 'last month' });
    expect(joined.fact_text).toBe('Alice joined Beacon Capital last month.');
  });

  it('a move said for "tomorrow" or "next mon" starts then, not when it was written', async () => {
    const at = '2026-11-20T10:00:00Z';
    for (const [text, from] of [
      ['Alice moves to Lisbon tomorrow.', '2026-11-21T00:00:00.000Z'],
      ['Alice starts at Beacon Capital next mon.', '2026-11-23T00:00:00.000Z'],
    ]) {
      const { facts } = await run(text, null, at);
      const state = facts.find((f) => f.memory_kind === 'semantic' && !f.negated);
      expect(state && times(state, at).valid_from).toBe(from);
    }
  });
});

describe('plans and possibilities are not said as done', () => {
  const at = '2026-11-20T10:00:00Z';
  const textsOf = factTexts('Lena', at);

  it('the present with a time ahead is a plan: "I fly to Tokyo tomorrow" is a trip to come, not a visit made', async () => {
    expect(await textsOf('I fly to Tokyo tomorrow.')).toEqual(['Lena is traveling to Tokyo as of tomorrow.']);
    expect(await textsOf('Tomorrow I head to Paris for the conference.')).toEqual(['Lena is traveling to Paris as of Tomorrow.']);
    expect(await textsOf('I start my new job at Stripe next week.')).toEqual(['Lena will start at Stripe next week.', 'Lena works at Stripe as of next week.']);
    expect(await textsOf("I'm starting at Globex on Monday.")).toContain('Lena will start at Globex on Monday.');
    expect(await textsOf('I am moving to Seattle in 2 months.')).toContain('Lena will move to Seattle in 2 months.');
  });

  it('the present with a time behind, or none, stays as it was said', async () => {
    expect(await textsOf('I started at Globex on Monday.')).toContain('Lena started at Globex on Monday.');
    expect(await textsOf('I work at Globex since March.')).toEqual(['Lena works at Globex since March.']);
    expect(await textsOf('I work at Globex.')).toEqual(['Lena works at Globex.']);
  });

  it('"might", "may", "could", "should" and "would" state no fact; "would love to" is still a wish', async () => {
    for (const text of ['I might move to Denver.', 'I may join Stripe.', 'I could live in Oslo.', 'I should visit Rome.', 'I would work at Globex if they asked.']) {
      expect({ text, facts: await textsOf(text) }).toEqual({ text, facts: [] });
    }
    expect(await textsOf('I would love to live in Kyoto.')).toEqual(['Lena wants to live in Kyoto.']);
  });
});

describe('back from a trip: the visit made and the trip over, however the return is said', () => {
  const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');
  const trip = (place: string, when = '') => [`Sam visited ${place}${when ? ` ${when}` : ''}.`, `Sam is no longer traveling to ${place}${when ? ` as of ${when}` : ''}.`];

  it('"got back from", which compromise reads as a passive auxiliary ("got fired")', async () => {
    expect(await textsOf('I just got back from Tokyo.')).toEqual(trip('Tokyo'));
    expect(await textsOf('I got back from Tokyo yesterday.')).toEqual(trip('Tokyo', 'yesterday'));
    expect(await textsOf("I'm back from Tokyo.")).toEqual(trip('Tokyo'));
  });

  it('"got home from", "came home from": home is where they went, not something bought, nor where they are from', async () => {
    expect(await textsOf('We got home from Lisbon last night.')).toEqual(trip('Lisbon', 'last night'));
    expect(await textsOf('I came home from Tokyo on Sunday.')).toEqual(['Sam visited Tokyo on Sunday.', 'Sam is no longer traveling to Tokyo as of Sunday.']);
    expect(await textsOf("I'm home from Tokyo.")).toEqual(trip('Tokyo'));
    expect(await textsOf('I got home late.')).toEqual([]);
    // A home bought is still owned.
    expect(await textsOf('I got a new home last year.')).toEqual(['Sam got a new home last year.', 'Sam owns a new home as of last year.']);
  });

  it('a return said ahead: the trip is on now, and the day said is when it ends, not when it starts', async () => {
    expect(await textsOf('I get back from Tokyo next Tuesday.')).toEqual(['Sam is traveling to Tokyo.']);
    expect(await textsOf("I'll be back from Rome on Sunday.")).toEqual(['Sam is traveling to Rome.']);
    expect(await textsOf("I'm coming back from Lisbon tomorrow.")).toEqual(['Sam is traveling to Lisbon.']);
    // A trip said ahead still starts then.
    expect(await textsOf("I'm flying to Tokyo next Friday.")).toEqual(['Sam is traveling to Tokyo as of next Friday.']);
  });
});

describe('what held until it ended: the text a fact with nothing stored to end is kept with', () => {
  const heldOf = async (text: string) =>
    (await run(text, 'Sam', '2026-11-20T10:00:00Z')).facts.filter((f) => f.negated).map((f) => [f.fact_text, f.held_text ?? null]);

  it('the statement as it read while it held, without the time of its end', async () => {
    expect(await heldOf("I'm back from Tokyo.")).toEqual([['Sam is no longer traveling to Tokyo.', 'Sam is traveling to Tokyo.']]);
    expect(await heldOf("I don't work at Acme anymore.")).toEqual([['Sam no longer works at Acme.', 'Sam works at Acme.']]);
    expect(await heldOf('I moved out of Berlin last month.')).toEqual([['Sam no longer lives in Berlin as of last month.', 'Sam lives in Berlin.']]);
    expect(await heldOf('I sold my car.')).toEqual([['Sam no longer owns a car.', 'Sam owns a car.']]);
  });

  it('"no longer" after a copula ends what held; a plain "not" denies it, and gives nothing that held', async () => {
    expect(await heldOf("I'm no longer a nurse.")).toEqual([['Sam no longer works as a nurse.', 'Sam works as a nurse.']]);
    expect(await heldOf('Ana is no longer at Acme.')).toEqual([['Ana no longer works at Acme.', 'Ana works at Acme.']]);
    expect(await heldOf("I'm not a vegetarian.")).toEqual([['Sam is not a vegetarian.', null]]);
    expect(await heldOf("I don't work at Acme.")).toEqual([['Sam does not work at Acme.', null]]);
  });

  it('a plain denial reads "not" for every kind of state, never "no longer" (it does not say the thing once held)', async () => {
    expect(await heldOf("Ana doesn't live in Paris.")).toEqual([['Ana does not live in Paris.', null]]);
    expect(await heldOf("I don't have a car.")).toEqual([['Sam does not own a car.', null]]);
    expect(await heldOf("I'm not a nurse.")).toEqual([['Sam does not work as a nurse.', null]]);
    expect(await heldOf("I'm not allergic to nuts.")).toEqual([['Sam is not allergic to nuts.', null]]);
    expect(await heldOf("I don't use Slack.")).toEqual([['Sam does not use Slack.', null]]);
    expect(await heldOf("I'm not sick.")).toEqual([['Sam is not sick.', null]]);
    expect(await heldOf("I'm not on the premium plan.")).toEqual([['Sam is not on the premium plan.', null]]);
  });

  it('"not a fan of" is a dislike, as "don\'t like" is; "no longer a fan of" ends the liking', async () => {
    const of = async (text: string) => (await run(text, 'Sam', '2026-11-20T10:00:00Z')).facts.map((f) => [f.fact_text, f.held_text ?? null]);
    expect(await of("I'm not a big fan of sushi.")).toEqual([['Sam dislikes sushi.', null]]);
    expect(await of("Ana is not a fan of jazz.")).toEqual([['Ana dislikes jazz.', null]]);
    expect(await of("I'm no longer a fan of Juventus.")).toEqual([['Sam no longer likes Juventus.', 'Sam likes Juventus.']]);
  });

  it('a relative denied by a copula is not one the speaker has; one ended by it is a former one', async () => {
    expect((await run('Ana is not my sister.', 'Sam', '2026-11-20T10:00:00Z')).facts.map((f) => [f.fact_text, f.negated])).toEqual([["Ana is not Sam's sister.", true]]);
    expect(await heldOf('Tom is no longer my boss.')).toEqual([["Tom is Sam's former boss.", "Tom is Sam's boss."]]);
    expect(await heldOf("Tom isn't my boss anymore.")).toEqual([["Tom is Sam's former boss.", "Tom is Sam's boss."]]);
    expect((await run('Mia is not my ex-wife.', 'Sam', '2026-11-20T10:00:00Z')).facts).toEqual([]);
    // Nor one a later pronoun can mean: "she" is Ana.
    expect((await run('Ana is not my sister, she is my cousin.', 'Sam', '2026-11-20T10:00:00Z')).facts.map((f) => f.fact_text)).toEqual(['Sam has a cousin.', "Ana is not Sam's sister.", "Ana is Sam's cousin."]);
    // Said of a relative, a denial still says the relative exists.
    expect((await run("My sister doesn't live in Paris.", 'Sam', '2026-11-20T10:00:00Z')).facts.map((f) => f.fact_text)).toEqual(['Sam has a sister.', "Sam's sister does not live in Paris."]);
  });

  it('the simple past of a state at a point in time held then: it reads so, and is dated so, never "no longer … as of 2010"', async () => {
    const told = '2026-11-20T10:00:00Z';
    const held = async (text: string) =>
      (await run(text, 'Sam', told)).facts.filter((f) => f.negated).map((f) => {
        const { valid_from, invalid_at } = times(f, told);
        return [f.fact_text, f.held_text ?? null, f.held_then ?? false, valid_from, invalid_at];
      });
    expect(await held('I worked at Acme in 2010.')).toEqual([['Sam worked at Acme in 2010.', 'Sam worked at Acme in 2010.', true, '2010-01-01T00:00:00.000Z', '2011-01-01T00:00:00.000Z']]);
    expect(await held('I lived in Paris last year.')).toEqual([['Sam lived in Paris last year.', 'Sam lived in Paris last year.', true, '2025-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z']]);
    expect(await held('In 2015 I lived in Rome.')).toEqual([['Sam lived in Rome in 2015.', 'Sam lived in Rome in 2015.', true, '2015-01-01T00:00:00.000Z', '2016-01-01T00:00:00.000Z']]);
    expect(await held('I was a nurse in 2012.')).toEqual([['Sam worked as a nurse in 2012.', 'Sam worked as a nurse in 2012.', true, '2012-01-01T00:00:00.000Z', '2013-01-01T00:00:00.000Z']]);
    expect(await held('Ana worked at Google in 2019.')).toEqual([['Ana worked at Google in 2019.', 'Ana worked at Google in 2019.', true, '2019-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z']]);
    // "Used to" is the same past: at a point in time it held then, without one it is only over.
    expect(await held('I used to live in Paris back in 2015.')).toEqual([['Sam lived in Paris back in 2015.', 'Sam lived in Paris back in 2015.', true, '2015-01-01T00:00:00.000Z', '2016-01-01T00:00:00.000Z']]);
    expect((await held('I used to work at Acme.')).map((f) => f.slice(0, 3))).toEqual([['Sam no longer works at Acme.', 'Sam works at Acme.', false]]);
    // A period that holds the telling ends no later than the telling.
    expect(await held('I lived in Rome this year.')).toEqual([['Sam lived in Rome this year.', 'Sam lived in Rome this year.', true, '2026-01-01T00:00:00.000Z', '2026-11-20T10:00:00.000Z']]);
    // An ending verb ends it then; a length says how long; no time says only that it is over; a denial never held.
    expect(await held('I left Acme in 2010.')).toEqual([['Sam no longer works at Acme as of 2010.', 'Sam works at Acme.', false, null, '2010-01-01T00:00:00.000Z']]);
    expect((await held('I worked at Acme for ten years.')).map((f) => f.slice(0, 3))).toEqual([['Sam worked at Acme for ten years.', 'Sam works at Acme.', false]]);
    expect((await held('I worked at Acme.')).map((f) => f.slice(0, 3))).toEqual([['Sam no longer works at Acme.', 'Sam works at Acme.', false]]);
    // A denial of a past time reads of that time ("does not work at Acme as of 2010" said it from 2010 on).
    expect((await held("I didn't work at Acme in 2010.")).map((f) => f.slice(0, 3))).toEqual([['Sam did not work at Acme in 2010.', null, false]]);
    expect((await held("My parents didn't live in Rome last year.")).map((f) => f.slice(0, 3))).toEqual([["Sam's parents did not live in Rome last year.", null, false]]);
    expect((await held("I wasn't a nurse in 2012.")).map((f) => f.slice(0, 3))).toEqual([['Sam did not work as a nurse in 2012.', null, false]]);
    // Said of now, or with no time, a denial is as before.
    expect((await held("I don't work at Acme.")).map((f) => f.slice(0, 3))).toEqual([['Sam does not work at Acme.', null, false]]);
    expect((await held("I didn't work at Acme.")).map((f) => f.slice(0, 3))).toEqual([['Sam does not work at Acme.', null, false]]);
  });

  it('a past with both bounds keeps them; a fact that was never so gives none', async () => {
    expect(await heldOf('I worked at Initech from 2019 to 2021.')).toEqual([['Sam worked at Initech from 2019 to 2021.', 'Sam worked at Initech from 2019 to 2021.']]);
    expect((await run('I got back from Tokyo.', 'Sam', '2026-11-20T10:00:00Z')).facts.filter((f) => !f.negated).map((f) => f.held_text ?? null)).toEqual([null]);
  });

  it('"before" bounds a past, "after" starts it, "before" starts what an event began, and a denied period is never read as held', async () => {
    const told = '2026-11-20T10:00:00.000Z';
    const stated = async (text: string) =>
      (await run(text, 'Sam', told)).facts.map((f) => {
        const { valid_from, invalid_at } = times(f, told);
        return [f.fact_text, f.predicate, f.negated, valid_from, invalid_at];
      });
    // A past said to be before a time ended by then: not "no longer lives in Paris before 2010".
    expect(await stated('I lived in Paris before 2010.')).toEqual([['Sam lived in Paris before 2010.', 'lives_in', true, null, '2010-01-01T00:00:00.000Z']]);
    expect(await heldOf('Before 2019 I worked at Acme.')).toEqual([['Sam worked at Acme before 2019.', 'Sam worked at Acme before 2019.']]);
    // After a time it held from then, over by the telling: not "no longer lives in Paris after 2010", ended in 2010.
    expect(await stated('I lived in Paris after 2010.')).toEqual([['Sam lived in Paris after 2010.', 'lives_in', true, '2010-01-01T00:00:00.000Z', told]]);
    expect((await stated("I didn't live in Paris after 2010."))[0].slice(0, 3)).toEqual(['Sam did not live in Paris after 2010.', 'lives_in', true]);
    // What an event before a time began held from then at the latest, open: not "Sam lives in Berlin" until 2020.
    expect(await stated('I moved to Berlin before 2020.')).toEqual([
      ['Sam moved to Berlin before 2020.', 'moved_to', false, '2020-01-01T00:00:00.000Z', null],
      ['Sam lives in Berlin as of 2020.', 'lives_in', false, '2020-01-01T00:00:00.000Z', null],
    ]);
    expect((await stated('I joined Acme by 2019.'))[1]).toEqual(['Sam works at Acme as of 2019.', 'works_at', false, '2019-01-01T00:00:00.000Z', null]);
    // What an event before a time ended had ended by then.
    expect((await stated('I left Acme before 2019.'))[1]).toEqual(['Sam worked at Acme before 2019.', 'works_at', true, null, '2019-01-01T00:00:00.000Z']);
    // A denial of a bounded period reads as denied of it ("Sam lived in Paris from 2010 to 2012." said the opposite).
    expect((await stated("I didn't live in Paris from 2010 to 2012."))[0].slice(0, 3)).toEqual(['Sam did not live in Paris from 2010 to 2012.', 'lives_in', true]);
    expect((await stated("I wasn't a nurse from 2010 to 2012."))[0].slice(0, 3)).toEqual(['Sam did not work as a nurse from 2010 to 2012.', 'has_role', true]);
    expect((await stated("I didn't work at Acme until 2019."))[0].slice(0, 3)).toEqual(['Sam did not work at Acme until 2019.', 'works_at', true]);
    expect((await stated("I don't live in Paris before 2010."))[0].slice(0, 3)).toEqual(['Sam does not live in Paris before 2010.', 'lives_in', true]);
  });

  it('"was living in" is the past of living somewhere, as "was working at" is, never a visit', async () => {
    const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');
    // compromise read "living" after "was" as an adjective: "Sam visited Rome."
    expect(await textsOf('I was living in Rome.')).toEqual(['Sam no longer lives in Rome.']);
    expect(await textsOf('I was still living in Oslo last year.')).toEqual(['Sam lived in Oslo last year.']);
    expect(await textsOf('I was working at Acme.')).toEqual(['Sam no longer works at Acme.']);
  });

  it('a birth reads as it was said: "in" a year or a month, "on" a day, and its place dated, never "as of"', async () => {
    const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');
    expect(await textsOf('I was born in 1990.')).toEqual(['Sam was born in 1990.']);
    expect(await textsOf('I was born in March 1990.')).toEqual(['Sam was born in March 1990.']);
    expect(await textsOf('I was born on March 3, 1990.')).toEqual(['Sam was born on March 3, 1990.']);
    expect(await textsOf('My birthday is May 5.')).toEqual(['Sam was born on May 5.']);
    // It read "Ana was born on 1988." and "Ana was born in Lisbon as of 1988."
    expect(await textsOf('Ana was born in Lisbon in 1988.')).toEqual(['Ana was born in 1988.', 'Ana was born in Lisbon in 1988.']);
  });
});

describe('a switch: what was switched to is used now, what was switched from no longer', () => {
  const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');

  it('"switched to" is not an ended past like "used"', async () => {
    expect(await textsOf('I switched from iPhone to Android.')).toEqual(['Sam uses Android.', 'Sam no longer uses iPhone.']);
    // Someone's team is not a tool, and not the someone.
    expect(await textsOf("I switched from Ana's team to Bo's.")).toEqual([]);
    expect(await textsOf("I switched to Bo's team.")).toEqual([]);
    expect(await textsOf('We migrated from MySQL to Postgres in 2024.')).toEqual(['Sam uses Postgres as of 2024.', 'Sam no longer uses MySQL as of 2024.']);
    expect(await textsOf('I switched to Linux last year.')).toEqual(['Sam uses Linux as of last year.']);
    expect(await textsOf('I used Windows.')).toEqual(['Sam no longer uses Windows.']);
    expect(await textsOf("I didn't switch from iPhone.")).toEqual([]);
  });
});

describe('a relative named by a copula', () => {
  const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');

  it('"my sister is Ana", "my boss is Ana Lopez": the relative has that name', async () => {
    expect(await textsOf('My sister is Ana.')).toEqual(["Ana is Sam's sister."]);
    expect(await textsOf('My boss is Ana Lopez.')).toEqual(["Ana Lopez is Sam's boss."]);
    expect(await textsOf('My sister is Ana and she lives in Oslo.')).toEqual(["Ana is Sam's sister.", 'Ana lives in Oslo.']);
    // The name does not end the clause: Ana is someone else.
    expect(await textsOf("My sister is Ana's best friend.")).not.toContain("Ana is Sam's sister.");
  });

  it('"I have a daughter named Emma": a relative named in the object of "have"', async () => {
    expect(await textsOf('I have a daughter named Emma.')).toEqual(["Emma is Sam's daughter."]);
    expect(await textsOf('Ana has a brother called Tom.')).toEqual(["Tom is Ana's brother."]);
    expect(await textsOf('I have a friend named Alex who lives in Paris.')).toEqual(["Alex is Sam's friend.", 'Alex lives in Paris.']);
    expect(await textsOf("I don't have a brother named Tom.")).toEqual([]);
  });

  it('"I have a sister", "we have two kids": a relative had, unnamed, is named after the relation', async () => {
    expect(await textsOf('I have a sister.')).toEqual(['Sam has a sister.']);
    expect(await textsOf('We have two kids.')).toEqual(['Sam has kids.']);
    expect(await textsOf('Ana has three children.')).toEqual(['Ana has children.']);
    expect(await textsOf('I have an older brother.')).toEqual(['Sam has a brother.']);
    // Not a relative, not had now, or not said plainly.
    expect(await textsOf('I have a friend.')).toEqual([]);
    expect(await textsOf("I don't have a sister.")).toEqual([]);
    expect(await textsOf('I had a sister.')).toEqual([]);
  });

  it('relatives spoken of as a group are one entity, and take a plural verb', async () => {
    expect(await textsOf('My kids love pizza.')).toEqual(['Sam has kids.', "Sam's kids like pizza."]);
    expect(await textsOf('My parents live in Lisbon.')).toEqual(['Sam has parents.', "Sam's parents live in Lisbon."]);
    expect(await textsOf("My parents don't live in Lisbon.")).toEqual(['Sam has parents.', "Sam's parents do not live in Lisbon."]);
    expect(await textsOf('My parents no longer live in Lisbon.')).toEqual(['Sam has parents.', "Sam's parents no longer live in Lisbon."]);
    // Two kids said in two episodes are the same entity.
    expect((await run('I have two kids.', 'Sam', '2026-11-20T10:00:00Z')).entities.map((e) => e.name)).toContain("Sam's kids");
    expect((await run('My kids love pizza.', 'Sam', '2026-11-20T10:00:00Z')).entities.map((e) => e.name)).toContain("Sam's kids");
  });

  it('the languages someone speaks, each its own fact; speaking at or to something is no language', async () => {
    expect(await textsOf('I speak French and German.')).toEqual(['Sam speaks French.', 'Sam speaks German.']);
    expect(await textsOf('I speak a little Japanese.')).toEqual(['Sam speaks Japanese.']);
    expect(await textsOf("I don't speak German.")).toEqual(['Sam does not speak German.']);
    expect(await textsOf('I speak to Ana every day.')).toEqual([]);
    expect(await textsOf("I'm learning Spanish.")).toEqual(['Sam studies Spanish.']);
  });

  it('a stay is a visit, or a trip when ahead; settling somewhere is living there from then on', async () => {
    expect(await textsOf("We're spending Christmas in Vienna.")).toEqual(['Sam is traveling to Vienna.']);
    expect(await textsOf('We spent Christmas in Vienna.')).toEqual(['Sam visited Vienna.']);
    expect(await textsOf('I stayed in Porto for a week.')).toEqual(['Sam visited Porto for a week.']);
    expect(await textsOf("I'm staying in Lisbon next month.")).toEqual(['Sam is traveling to Lisbon as of next month.']);
    expect(await textsOf('We settled in Porto.')).toEqual(['Sam lives in Porto.']);
  });

  it('a divorce or a break-up ends the relationship; an unnamed partner reads as had until then', async () => {
    expect(await textsOf('Ana divorced Tom.')).toEqual(['Ana is no longer married to Tom.']);
    expect(await textsOf('I got divorced from Tom.')).toEqual(['Sam is no longer married to Tom.']);
    expect(await textsOf('Ana broke up with Tom.')).toEqual(['Ana is no longer in a relationship with Tom.']);
    expect(await textsOf('I divorced my husband in 2019.')).toEqual(['Sam had a husband until 2019.']);
    // "my boyfriend" no longer also says Sam has one.
    expect(await textsOf('I broke up with my boyfriend last week.')).toEqual(['Sam had a boyfriend until last week.']);
    expect(await textsOf('I broke my arm.')).toEqual([]);
  });

  it('an unnamed ex is named as one, so a later "my husband" is someone else', async () => {
    expect(await textsOf('My ex-husband lives in Denver.')).toEqual(['Sam had a husband.', "Sam's ex-husband lives in Denver."]);
    expect(await textsOf('My husband lives in Denver.')).toEqual(['Sam has a husband.', "Sam's husband lives in Denver."]);
  });

  it('a death is remembered, dated as said; a phone that died is no death', async () => {
    expect(await textsOf('My dad passed away last year.')).toEqual(['Sam has a dad.', "Sam's dad died last year."]);
    expect(await textsOf('Ana died in 2020.')).toEqual(['Ana died in 2020.']);
    expect(await textsOf('My phone died.')).toEqual([]);
    expect(await textsOf('Ana passed the exam.')).toEqual([]);
  });

  it('starting college at a school is studying there', async () => {
    expect(await textsOf('My daughter Emma started college at MIT.')).toEqual(["Emma is Sam's daughter.", 'Emma studies at MIT.']);
    expect(await textsOf('I begin law school at Yale in September.')).toEqual(['Sam studies at Yale as of September.']);
    expect(await textsOf('Emma started college.')).toEqual(['Emma studies at college.']);
    expect(await textsOf('I started at Stripe last week.')).toEqual(['Sam started at Stripe last week.', 'Sam works at Stripe as of last week.']);
  });

  it('"my partner" is a relative; "a partner at McKinsey" a role', async () => {
    expect(await textsOf('My partner Alex works at Google.')).toEqual(["Alex is Sam's partner.", 'Alex works at Google.']);
    expect(await textsOf("I'm a partner at McKinsey.")).toEqual(['Sam works as a partner.', 'Sam works at McKinsey.']);
  });

  it('"my sister\'s name is Ana", "my dog\'s name is Max" name the relative, never the speaker', async () => {
    expect(await textsOf("My sister's name is Ana.")).toEqual(["Ana is Sam's sister."]);
    expect(await textsOf("My dog's name is Max.")).toEqual(['Sam has a dog named Max.']);
    expect(await textsOf('My name is Sam.')).toEqual(["Sam's name is Sam."]);
  });
});

describe('promoted, fired: the get-passive is a past like the be-passive', () => {
  const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');

  it('a promotion is the role held from then on, not one that ended', async () => {
    expect(await textsOf('Ana got promoted to director.')).toEqual(['Ana works as a director.']);
    expect(await textsOf('I got promoted to senior engineer last month.')).toEqual(['Sam works as a senior engineer as of last month.']);
    expect(await textsOf('I was promoted to team lead.')).toEqual(['Sam works as a team lead.']);
    expect(await textsOf("I wasn't promoted to director.")).toEqual([]);
  });

  it('starting school is studying there, from then on; starting at Acme is a job', async () => {
    expect(await textsOf('Emma started kindergarten last week.')).toEqual(['Emma studies at kindergarten as of last week.']);
    expect(await textsOf('I started at Acme last week.')).toEqual(['Sam started at Acme last week.', 'Sam works at Acme as of last week.']);
  });

  it('"got fired from Acme", "got laid off from Google" end the job as "was fired" does', async () => {
    expect(await textsOf('I got fired from Acme.')).toEqual(['Sam was fired from Acme.', 'Sam no longer works at Acme.']);
    expect(await textsOf('I got laid off from Google last month.')).toEqual(['Sam was laid off from Google last month.', 'Sam no longer works at Google as of last month.']);
  });

  it('"got engaged to Mia" is a relationship, as "is engaged to" is; "not engaged" ends none', async () => {
    expect(await textsOf('Just got engaged to Mia!')).toEqual(['Sam is in a relationship with Mia.']);
    expect(await textsOf('Ana is engaged to Tom.')).toEqual(['Ana is in a relationship with Tom.']);
    expect(await textsOf("I'm not engaged to Mia.")).toEqual([]);
  });
});

describe('habits given up or ruled out are what the person avoids', () => {
  const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');

  it('stopped, quit, no longer, used to, cannot', async () => {
    expect(await textsOf('I stopped drinking coffee.')).toEqual(['Sam avoids coffee.']);
    expect(await textsOf('I quit smoking last year.')).toEqual(['Sam avoids smoking as of last year.']);
    expect(await textsOf("I don't drink coffee anymore.")).toEqual(['Sam avoids coffee.']);
    expect(await textsOf('I used to smoke.')).toEqual(['Sam avoids smoking.']);
    expect(await textsOf("I can't drink alcohol because of my meds.")).toEqual(['Sam avoids alcohol.']);
    // A habit kept is not one given up.
    expect(await textsOf('I drink coffee every day.')).toEqual([]);
  });

  it('a habit denied in the present is ruled out; one day, or a narrowed habit, is not', async () => {
    expect(await textsOf("I don't smoke.")).toEqual(['Sam avoids smoking.']);
    expect(await textsOf('I never eat meat.')).toEqual(['Sam avoids meat.']);
    expect(await textsOf("Ana doesn't drink.")).toEqual(['Ana avoids drinking.']);
    expect(await textsOf("I didn't eat lunch.")).toEqual([]);
    expect(await textsOf("I don't eat meat on Fridays.")).toEqual([]);
    expect(await textsOf("I don't eat much.")).toEqual([]);
    expect(await textsOf("I don't drink coffee after 3pm.")).toEqual([]);
  });

  it('a diet said with an adjective reads without an article', async () => {
    expect(await textsOf("I'm lactose intolerant.")).toEqual(['Sam is lactose intolerant.']);
    expect(await textsOf("I'm vegan.")).toEqual(['Sam is a vegan.']);
  });
});

describe('a subject chat leaves out', () => {
  const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');
  const trip = (place: string) => [`Sam visited ${place}.`, `Sam is no longer traveling to ${place}.`];

  it('a statement that opens with a past verb is the speaker\'s, or of whom the sentence before spoke', async () => {
    expect(await textsOf('Moved to Berlin last month.')).toEqual(['Sam moved to Berlin last month.', 'Sam lives in Berlin as of last month.']);
    expect(await textsOf('Thanks! Adopted a dog named Max last week.')).toEqual(['Sam adopted Max last week.', 'Sam has a dog named Max as of last week.']);
    expect(await textsOf('Used to live in Paris.')).toEqual(['Sam no longer lives in Paris.']);
    expect(await textsOf('Ana moved to Berlin. Started at Stripe last week.')).toEqual([
      'Ana moved to Berlin.', 'Ana lives in Berlin.', 'Ana started at Stripe last week.', 'Ana works at Stripe as of last week.',
    ]);
  });

  it('a sentence that opens with a verb in -ing reads with "I\'m", unless the one before spoke of someone else', async () => {
    expect(await textsOf('Heading to Tokyo tomorrow.')).toEqual(['Sam is traveling to Tokyo as of tomorrow.']);
    expect(await textsOf('Working at Acme now.')).toEqual(['Sam works at Acme.']);
    expect(await textsOf('I love Japan. Flying to Tokyo next week!')).toEqual(['Sam likes Japan.', 'Sam is traveling to Tokyo as of next week.']);
    expect(await textsOf('Ana loves Japan. Heading to Tokyo tomorrow.')).toEqual(['Ana likes Japan.']);
    // The -ing word is the subject here, not a verb Sam says of himself.
    expect(await textsOf('Living in Berlin is expensive.')).toEqual([]);
  });

  it('not an order or a question, which open with their verb too', async () => {
    expect(await textsOf('Call Ana tomorrow.')).toEqual([]);
    expect(await textsOf('Moved to Berlin?')).toEqual([]);
  });

  it('a return without "I\'m", or with an adverb before "back"', async () => {
    expect(await textsOf('Back from Lisbon!')).toEqual(trip('Lisbon'));
    expect(await textsOf('Just back from Lisbon, what a trip.')).toEqual(trip('Lisbon'));
    expect(await textsOf('Home from Tokyo, exhausted.')).toEqual(trip('Tokyo'));
    expect(await textsOf("I'm just back from Oslo.")).toEqual(trip('Oslo'));
    expect(await textsOf('Ana is finally home from Rome.')).toEqual(['Ana visited Rome.', 'Ana is no longer traveling to Rome.']);
    expect(await textsOf('My back hurts.')).toEqual([]);
  });
});

describe('visiting someone somewhere is a visit to the place', () => {
  const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');

  it('"visiting Ana in Rome": the trip is to Rome; "in the hospital" names no place visited', async () => {
    expect(await textsOf("I'm visiting Ana in Rome next week.")).toEqual(['Sam is traveling to Rome as of next week.']);
    expect(await textsOf('I visited my parents in Lisbon last month.')).toContain('Sam visited Lisbon last month.');
    expect(await textsOf('We visited Ana in the hospital.')).toEqual([]);
  });
});

describe('a habit has no date', () => {
  const textsOf = factTexts('Sam', '2026-11-20T10:00:00Z');

  it('"every Friday", "each spring" date no single visit; a dated one keeps its date', async () => {
    expect(await textsOf('I fly to Tokyo every Friday.')).toEqual(['Sam visited Tokyo.']);
    expect(await textsOf('I go to Lisbon each spring.')).toEqual(['Sam visited Lisbon.']);
    expect(await textsOf('I flew to Tokyo last Friday.')).toEqual(['Sam visited Tokyo last Friday.']);
  });

  it('"on Mondays", "on weekends" are when, never what: not a project worked on', async () => {
    expect(await textsOf('I usually work from home on Mondays.')).toEqual([]);
    expect(await textsOf('I visit Porto on weekends.')).toEqual(['Sam visited Porto.']);
    expect(await textsOf('I work on Project Apollo.')).toEqual(['Sam works on Project Apollo.']);
  });
});

describe('objects read whole, and no further than the list', () => {
  const textsOf = factTexts('Sam', '2026-06-10T18:00:00Z');

  it('a plural head compromise tags as a verb is the noun it is: "aisle seats", not "aisle"', async () => {
    expect(await textsOf('I prefer aisle seats on long flights.')).toEqual(['Sam prefers aisle seats.']);
    expect(await textsOf('I prefer window seats.')).toEqual(['Sam prefers window seats.']);
    // Not after a verb that takes a clause.
    expect(await textsOf('I think Ana works at Acme.')).toEqual(['Ana works at Acme.']);
  });

  it('what follows ", so" or ", which" is another thought, not the next item of the list', async () => {
    expect(await textsOf("I'm allergic to peanuts, so no Thai satay for me.")).toEqual(['Sam is allergic to peanuts.']);
    expect(await textsOf("I'm allergic to peanuts, shellfish, and soy.")).toEqual(['Sam is allergic to peanuts.', 'Sam is allergic to shellfish.', 'Sam is allergic to soy.']);
  });

  it('a company that "is in" a city is located there; it does not visit', async () => {
    expect(await textsOf('I work at Acme, which is in Boston.')).toEqual(['Sam works at Acme.', 'Acme is located in Boston.']);
  });
});

describe('scenario 6: "I left Google last May to join Anthropic"', () => {
  const at = '2026-02-01T00:00:00Z';

  it('resolves I to the speaker and dates both sides of the move', async () => {
    const { entities, facts } = await run('I left Google last May to join Anthropic', 'u1', at);
    expect(entity(entities, 'u1').type).toBe('person');
    expect(entity(entities, 'Google').type).toBe('organization');
    expect(entity(entities, 'Anthropic').type).toBe('organization');
    const google = fact(facts, { subject: 'u1', predicate: 'works_at', object: 'Google' });
    expect(google).toMatchObject({ negated: true, time_expression: 'last May', memory_kind: 'semantic' });
    expect(times(google, at)).toEqual({ valid_from: null, invalid_at: '2025-05-01T00:00:00.000Z' });
    const anthropic = fact(facts, { subject: 'u1', predicate: 'works_at', object: 'Anthropic' });
    expect(anthropic).toMatchObject({ negated: false, time_expression: 'last May', memory_kind: 'semantic' });
    expect(times(anthropic, at)).toEqual({ valid_from: '2025-05-01T00:00:00.000Z', invalid_at: null });
    const move = facts.filter((f) => f.memory_kind === 'episode');
    expect(move.map((f) => [f.predicate, f.object])).toEqual(expect.arrayContaining([['left', 'Google'], ['joined', 'Anthropic']]));
    // "last May" is a month, not a hedge ("may"): default confidence.
    for (const f of facts) expect(f.confidence).toBe(0.7);
  });

  it('drops speaker facts when no speaker is known', async () => {
    const { entities, facts } = await run('I left Google last May to join Anthropic', null, at);
    expect(entities.map((e) => e.name).sort()).toEqual(['Anthropic', 'Google']);
    expect(facts).toEqual([]);
  });
});

describe('scenario 7: determinism', () => {
  it('the same sentence twice gives identical output', async () => {
    const text = "Alice isn't at Acme Corp anymore. She joined Beacon Capital last month.";
    const a = await run(text, 'u9', '2026-06-15T00:00:00Z');
    const b = await run(text, 'u9', '2026-06-15T00:00:00Z');
    expect(b).toEqual(a);
    // And a fresh provider instance agrees (nothing depends on instance state).
    const other = new HeuristicProvider();
    const episode = { text, speaker: 'u9', occurredAt: '2026-06-15T00:00:00Z' };
    expect((await other.extractEntities(episode)).entities).toEqual(a.entities);
    expect((await other.extractFacts(episode, a.entities)).facts).toEqual(a.facts);
  });
});

describe('fact stage binds to the resolved entities', () => {
  it('uses the resolved canonical name when resolution matched an alias', async () => {
    const episode = { text: 'Alice works at Acme.', speaker: null, occurredAt: '2026-01-01T00:00:00Z' };
    const resolved = [
      { name: 'Alice Smith', type: 'person', aliases: ['Alice'] },
      { name: 'Acme Corp', type: 'organization', aliases: ['Acme'] },
    ];
    const { facts } = await provider.extractFacts(episode, resolved);
    const f = fact(facts, { predicate: 'works_at' });
    expect(f).toMatchObject({ subject: 'Alice Smith', object: 'Acme Corp' });
    expect(f.fact_text).toBe('Alice Smith works at Acme Corp.');
  });

  it('keeps an object the resolver dropped as a literal value, and drops facts whose subject is unknown', async () => {
    const episode = { text: 'Alice works at Acme.', speaker: null, occurredAt: '2026-01-01T00:00:00Z' };
    const onlyAlice = await provider.extractFacts(episode, [{ name: 'Alice', type: 'person', aliases: [] }]);
    expect(fact(onlyAlice.facts, { predicate: 'works_at' })).toMatchObject({ object: null, value: 'Acme' });
    const none = await provider.extractFacts(episode, [{ name: 'Acme', type: 'organization', aliases: [] }]);
    expect(none.facts).toEqual([]);
  });
});
