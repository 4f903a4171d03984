import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import type { EntityCandidate, FactCandidate } from '../core/extraction/types.js';

/** Casual chat turns (REALTALK-style), pronouns, negation, hedges, names and dates. */

const provider = new HeuristicProvider();
const AT = '2026-02-01T00:00:00Z';

async function run(text: string, speaker: string | null = 'Emi'): Promise<{ entities: EntityCandidate[]; facts: FactCandidate[] }> {
  const episode = { text, speaker, occurredAt: AT };
  const { entities } = await provider.extractEntities(episode);
  const { facts } = await provider.extractFacts(episode, entities);
  return { entities, facts };
}

/** Compact triples for readable expectations: "subject predicate object-or-value[!]" (! = negated). */
function triples(facts: FactCandidate[]): string[] {
  return facts.map((f) => `${f.subject} ${f.predicate} ${f.object ?? f.value}${f.negated ? ' !' : ''}`);
}

function types(entities: EntityCandidate[]): Record<string, string> {
  return Object.fromEntries(entities.map((e) => [e.name, e.type]));
}

describe('chat sentences', () => {

  it('"I left Initech last week and joined Hooli as a QA lead" → both moves, though compromise tags "joined" an adjective', async () => {
    const { entities, facts } = await run('I left Initech last week and joined Hooli as a QA lead.');
    expect(types(entities)).toMatchObject({ Initech: 'organization', Hooli: 'organization' });
    expect(triples(facts)).toEqual(expect.arrayContaining(['Emi left Initech', 'Emi works_at Initech !', 'Emi joined Hooli', 'Emi works_at Hooli']));
  });

  it('"I moved to Porto and joined Hooli" → a new home and a new employer, not a home called "joined Hooli"', async () => {
    const { facts } = await run('I moved to Porto and joined Hooli.');
    expect(triples(facts)).toEqual(['Emi moved_to Porto', 'Emi lives_in Porto', 'Emi joined Hooli', 'Emi works_at Hooli']);
  });

  it('"I worked at Initech from 2019 to 2021" → a past state with both ends, said in the past tense', async () => {
    const { facts } = await run('I worked at Initech from 2019 to 2021.');
    expect(facts.map((f) => [f.predicate, f.negated, f.time_expression, f.fact_text])).toEqual([['works_at', true, 'from 2019 to 2021', 'Emi worked at Initech from 2019 to 2021.']]);
    const opening = await run('From June 2020 until March 2022 I lived in Oslo.');
    expect(opening.facts.map((f) => f.fact_text)).toEqual(['Emi lived in Oslo from June 2020 until March 2022.']);
  });

  it('a former, retired or past role ended; "not a former teacher" says nothing', async () => {
    const said = async (text: string) => (await run(text)).facts.map((f) => [f.fact_text, f.negated, f.held_text]);
    expect(await said("I'm a former teacher.")).toEqual([['Emi no longer works as a teacher.', true, 'Emi works as a teacher.']]);
    // Retired is a role of its own, which holds now.
    expect(await said('Ana is a retired nurse.')).toEqual([
      ['Ana no longer works as a nurse.', true, 'Ana works as a nurse.'],
      ['Ana is retired.', false, null],
    ]);
    expect(await said('I was a teacher.')).toEqual([['Emi no longer works as a teacher.', true, 'Emi works as a teacher.']]);
    expect(await said('Ana was the CEO of Acme.')).toEqual([
      ['Ana no longer works as a CEO.', true, 'Ana works as a CEO.'],
      ['Ana no longer works at Acme.', true, 'Ana works at Acme.'],
    ]);
    expect(await said('Ana is a former CEO of Acme.')).toEqual([
      ['Ana no longer works as a CEO.', true, 'Ana works as a CEO.'],
      ['Ana no longer works at Acme.', true, 'Ana works at Acme.'],
    ]);
    expect(await said("I'm not a former teacher.")).toEqual([]);
    expect(await said("I'm a teacher.")).toEqual([['Emi works as a teacher.', false, null]]);
  });

  it('retiring is a role that holds from when it was said (a later role supersedes it); "I\'ll retire" is not one', async () => {
    const said = async (text: string) => (await run(text)).facts.filter((f) => f.predicate === 'has_role').map((f) => [f.value, f.fact_text, f.negated]);
    expect(await said("I'm retired.")).toEqual([['retired', 'Emi is retired.', false]]);
    expect(await said('I retired last year.')).toEqual([['retired', 'Emi retired last year.', false]]);
    expect(await said('My dad has retired.')).toEqual([['retired', "Emi's dad is retired.", false]]);
    expect(await said("I'm not retired.")).toEqual([['retired', 'Emi is not retired.', true]]);
    expect(await said("I've been retired for two years.")).toEqual([['retired', 'Emi has been retired for two years.', false]]);
    expect(await said('I was retired for two years.')).toEqual([['retired', 'Emi was retired for two years.', true]]);
    expect(await said("I'll retire in May.")).toEqual([]);
    expect(await said("I didn't retire.")).toEqual([]);
    // The job it ended is still read by the frame: left Acme, no longer works there.
    expect(triples((await run('I retired from Acme in 2019.')).facts)).toEqual(['Emi has_role retired', 'Emi left Acme', 'Emi works_at Acme !']);
  });

  it('"my ex" alone is an ex-partner: named when said, "Sam\'s ex-partner" when not', async () => {
    const text = async (sentence: string) => (await run(sentence)).facts.map((f) => f.fact_text);
    expect(await text('Tom is my ex.')).toEqual(['Emi had a partner.', "Tom is Emi's former partner."]);
    expect(await text('My ex lives in Berlin.')).toEqual(['Emi had a partner.', "Emi's ex-partner lives in Berlin."]);
    expect(await text('Tom is not my ex.')).toEqual([]);
  });

  it('married or divorced without a name: a marriage to "Sam\'s spouse", said of the person', async () => {
    const said = async (text: string) => (await run(text)).facts.map((f) => [f.predicate, f.object, f.fact_text, f.negated]);
    expect(await said("I'm married.")).toEqual([['married_to', "Emi's spouse", 'Emi is married.', false]]);
    expect(await said('I got married last year.')).toEqual([['married_to', "Emi's spouse", 'Emi got married last year.', false]]);
    expect(await said("I've been married for ten years.")).toEqual([['married_to', "Emi's spouse", 'Emi has been married for ten years.', false]]);
    expect(await said("I'm not married.")).toEqual([['married_to', "Emi's spouse", 'Emi is not married.', true]]);
    expect(await said("I'm divorced.")).toEqual([['married_to', "Emi's spouse", 'Emi is no longer married.', true]]);
    expect(await said('I got divorced in 2020.')).toEqual([['married_to', "Emi's spouse", 'Emi was married until 2020.', true]]);
    expect(await said('I was married for ten years.')).toEqual([['married_to', "Emi's spouse", 'Emi was married for ten years.', true]]);
    expect(await said("I'm married to Ana.")).toEqual([['married_to', 'Ana', 'Emi is married to Ana.', false]]);
  });

  it('a state said with its length reads as how long it held, holds or was denied, never "no longer … for ten years"', async () => {
    const text = async (sentence: string) => (await run(sentence)).facts.map((f) => f.fact_text);
    expect(await text('I worked at Acme for ten years.')).toEqual(['Emi worked at Acme for ten years.']);
    expect(await text('I was a teacher for ten years.')).toEqual(['Emi worked as a teacher for ten years.']);
    expect(await text("I've lived in Paris for five years.")).toEqual(['Emi has lived in Paris for five years.']);
    expect(await text('I have been a teacher for ten years.')).toEqual(['Emi has worked as a teacher for ten years.']);
    expect(await text("I haven't worked at Acme for ten years.")).toEqual(['Emi has not worked at Acme for ten years.']);
  });

  it('an asserted state whose stated end came before the telling is said in the past tense; one that ends later is not', async () => {
    const nurse = await run('I was a nurse from 2010 to 2014.');
    expect(nurse.facts.map((f) => [f.predicate, f.negated, f.fact_text])).toEqual([['has_role', false, 'Emi worked as a nurse from 2010 to 2014.']]);
    // Told on 2026-02-01: June is still ahead.
    expect((await run('I work at Hooli until June.')).facts.map((f) => f.fact_text)).toEqual(['Emi works at Hooli until June.']);
  });

  it('an "-ed" adjective after "and" stays an adjective when no object follows it, or when an adjective precedes "and"', async () => {
    expect((await run('I was tired and bored.')).facts).toEqual([]);
    expect(triples((await run('She bought a red and painted Ford.')).facts).filter((t) => /paint/.test(t))).toEqual([]);
  });
  it('"I\'ve been really into painting lately" → interest', async () => {
    const { facts } = await run("I've been really into painting lately");
    expect(triples(facts)).toEqual(['Emi interested_in painting']);
    expect(facts[0]).toMatchObject({ family: 'preferences', memory_kind: 'semantic', time_expression: null });
  });

  it('"My sister just moved to Chicago" → relative, move event, new home', async () => {
    const { entities, facts } = await run('My sister just moved to Chicago');
    expect(types(entities)).toEqual({ Emi: 'person', "Emi's sister": 'person', Chicago: 'place' });
    expect(entities.find((e) => e.name === "Emi's sister")?.aliases).toEqual(['My sister']);
    expect(triples(facts)).toEqual(["Emi family_of Emi's sister", "Emi's sister moved_to Chicago", "Emi's sister lives_in Chicago"]);
    expect(facts.find((f) => f.predicate === 'moved_to')).toMatchObject({ memory_kind: 'episode', family: 'events' });
    expect(facts.find((f) => f.predicate === 'family_of')?.predicate_raw).toBe('sister');
  });

  it('"I work as a nurse at the hospital" → role and workplace', async () => {
    const { facts } = await run('I work as a nurse at the hospital');
    expect(triples(facts).sort()).toEqual(['Emi has_role nurse', 'Emi works_at hospital']);
    expect(facts.find((f) => f.predicate === 'has_role')?.fact_text).toBe('Emi works as a nurse.');
  });

  it('"I love hiking with my dog Max" → liking and a named pet', async () => {
    const { entities, facts } = await run('I love hiking with my dog Max');
    expect(types(entities)).toEqual({ Emi: 'person', Max: 'other' });
    expect(entities.find((e) => e.name === 'Max')?.aliases).toEqual(['my dog Max']);
    expect(triples(facts).sort()).toEqual(['Emi likes hiking', 'Emi owns Max']);
    expect(facts.find((f) => f.predicate === 'owns')?.fact_text).toBe('Emi has a dog named Max.');
  });

  it.each([
    ["I don't like donuts.", ['Emi dislikes donuts']],
    ["I can't stand horror movies.", ['Emi dislikes horror movies']],
    ['I hate running.', ['Emi dislikes running']],
    ['I like running and cycling a lot.', ['Emi likes running', 'Emi likes cycling']],
    ['I love watching new films', ['Emi likes watching new films']],
    ['My favorite food is pizza.', ['Emi likes pizza']],
    ['I definitely prefer tea over coffee.', ['Emi prefers tea over coffee']],
    ["I'm allergic to peanuts.", ['Emi allergic_to peanuts']],
    ['I have asthma.', ['Emi has_condition asthma']],
    ['I take insulin every day.', ['Emi takes_medication insulin every day']],
    ["I'm 25 years old.", ['Emi has_age 25']],
    ['My name is Emi.', ['Emi has_name Emi']],
    ['I was born on March 3, 1990.', ['Emi born_on March 3, 1990']],
    ["I'd love to visit Japan.", ['Emi wants visit Japan']],
    ['I switched to the Pro plan.', ['Emi changed_plan Pro', 'Emi has_plan Pro']],
    ['I got a cat!!', ['Emi acquired cat', 'Emi owns cat']],
    ['I am a software engineer at Microsoft.', ['Emi has_role software engineer', 'Emi works_at Microsoft']],
    ['I just got a new job at Shopify!', ['Emi joined Shopify', 'Emi works_at Shopify']],
    ['We decided to move to Portugal.', ['Emi decided move to Portugal']],
  ])('%s', async (text, expected) => {
    const { facts } = await run(text);
    expect(triples(facts)).toEqual(expected);
  });

  it('families and memory kinds follow the predicate table', async () => {
    const { facts } = await run("I'm allergic to peanuts and I earn 5000 dollars a month.");
    expect(facts.find((f) => f.predicate === 'allergic_to')).toMatchObject({ family: 'health', memory_kind: 'semantic' });
    expect(facts.find((f) => f.predicate === 'earns')).toMatchObject({ family: 'financial', value: '5000 dollars a month' });
  });

  it('"I think X is ..." is a viewpoint of the speaker', async () => {
    const { facts } = await run('I think winter is awesome.');
    expect(facts).toHaveLength(1);
    expect(facts[0]).toMatchObject({ subject: 'Emi', predicate: 'has_opinion', value: 'winter is awesome', memory_kind: 'viewpoint', confidence: 0.5 });
    expect(facts[0].fact_text).toBe('Emi thinks winter is awesome.');
  });

  it('says nothing for questions, wishes, conditionals and conversation', async () => {
    for (const text of ['Do you like pizza?', 'I wish I had a car', 'If I move to Paris I will tell you', 'I wanted to ask you a question', 'I think you convinced me to try to get a cat']) {
      const { facts } = await run(text);
      expect({ text, facts: triples(facts) }).toEqual({ text, facts: [] });
    }
  });

  it('does not read the filler "like" as a verb', async () => {
    const { facts } = await run('I think I got like halfway through the movie');
    expect(triples(facts)).toEqual([]);
    const { facts: f2 } = await run('I tried calling her like 3 times');
    expect(triples(f2).filter((t) => t.includes('likes'))).toEqual([]);
  });

  it('a past "have" is not ownership ("I just had a hot dog")', async () => {
    expect(triples((await run('I just had a costco hot dog')).facts)).toEqual([]);
  });
});

describe('pronouns', () => {
  it('he/she resolve to the last person of matching gender', async () => {
    const { facts } = await run('Maria met John at the conference. He works at IBM and she works at Apple.', null);
    expect(triples(facts)).toEqual(expect.arrayContaining(['John works_at IBM', 'Maria works_at Apple']));
  });

  it('"my sister Ana ... She" names Ana and keeps the relation', async () => {
    const { entities, facts } = await run('My sister Ana lives in Lisbon. She works at Google.', 'u1');
    expect(entities.find((e) => e.name === 'Ana')).toEqual({ name: 'Ana', type: 'person', aliases: ['My sister Ana'] });
    expect(triples(facts)).toEqual(['u1 family_of Ana', 'Ana lives_in Lisbon', 'Ana works_at Google']);
    expect(facts[0].fact_text).toBe("Ana is u1's sister.");
  });

  it('possessive names own relations ("Tom\'s wife Sarah")', async () => {
    const { facts } = await run("Tom's wife Sarah is a doctor.", null);
    expect(triples(facts)).toEqual(['Tom married_to Sarah', 'Sarah has_role doctor']);
  });

  it('an unresolvable pronoun yields no fact rather than a wrong one', async () => {
    expect((await run('She married Tom in 2020.', null)).facts).toEqual([]);
    expect((await run('He earns 5000 dollars a month.', null)).facts).toEqual([]);
  });

  it('I/me/my resolve to the speaker; "we" as a subject too', async () => {
    const { entities, facts } = await run('We went to the Web Summit in Lisbon.', 'u7');
    expect(types(entities)).toMatchObject({ u7: 'person', 'Web Summit': 'event', Lisbon: 'place' });
    expect(triples(facts).sort()).toEqual(['u7 attended Web Summit', 'u7 visited Lisbon']);
  });

  it('relative clauses: "Our CEO, who lives in Berlin"', async () => {
    const { facts } = await run('Our CEO, who lives in Berlin, joined in 2020.', null);
    expect(triples(facts)).toEqual(['CEO lives_in Berlin']);
  });

  it('coordinated subjects each get the fact', async () => {
    const { facts } = await run('Emi and Kevin live in Seattle.', null);
    expect(triples(facts)).toEqual(['Emi lives_in Seattle', 'Kevin lives_in Seattle']);
  });
});

describe('negation and transitions', () => {
  it.each([
    ["I'm no longer working at Premex.", ['u1 works_at Premex !']],
    ['I no longer live in Berlin.', ['u1 lives_in Berlin !']],
    ['I moved out of Berlin two weeks ago.', ['u1 left Berlin', 'u1 lives_in Berlin !']],
    ['I quit my job at the bakery two weeks ago.', ['u1 left bakery', 'u1 works_at bakery !']],
    ['I stopped working at Acme in 2023.', ['u1 left Acme', 'u1 works_at Acme !']],
    ['I used to live in New York but moved to San Francisco in 2019.', ['u1 lives_in New York !', 'u1 moved_to San Francisco', 'u1 lives_in San Francisco']],
    ['I worked at IBM for 3 years.', ['u1 works_at IBM !']],
    ["I've worked at IBM for 3 years.", ['u1 works_at IBM']],
    ['my ex-wife lives in Paris', ["u1 married_to u1's ex-wife !", "u1's ex-wife lives_in Paris"]],
  ])('%s', async (text, expected) => {
    expect(triples((await run(text, 'u1')).facts)).toEqual(expected);
  });

  it('dates each side of a transition with the same phrase', async () => {
    const { facts } = await run('I moved out of Berlin two weeks ago.', 'u1');
    for (const f of facts) expect(f.time_expression).toBe('two weeks ago');
    expect(facts.map((f) => f.memory_kind)).toEqual(['episode', 'semantic']);
  });

  it('future plans are dated and not stated as visits', async () => {
    const { facts } = await run("I'm going to Paris next week.");
    expect(triples(facts)).toEqual(['Emi travels_to Paris']);
    expect(facts[0].time_expression).toBe('next week');
  });

  it('passive voice with an agent: "The project is led by Maria"', async () => {
    expect(triples((await run('Acme was acquired by Google last year.', null)).facts)).toEqual(['Google acquired Acme', 'Google owns Acme']);
  });
});

describe('confidence', () => {
  it.each([
    ['Alice works at Acme.', 0.7],
    ['Alice definitely works at Acme.', 0.85],
    ['Alice maybe works at Acme.', 0.5],
    ['I think Alice works at Acme.', 0.5],
    ['Alice probably works at Acme.', 0.5],
  ])('%s → %s', async (text, confidence) => {
    const { facts } = await run(text, 'u1');
    expect(facts.find((f) => f.predicate === 'works_at')?.confidence).toBe(confidence);
  });
});

describe('entities', () => {
  it('canonicalizes determiners and keeps the surface as an alias', async () => {
    const { entities } = await run('Bob reports to the CTO.', null);
    expect(entities).toEqual([
      { name: 'Bob', type: 'person', aliases: [] },
      { name: 'CTO', type: 'person', aliases: ['the CTO'] },
    ]);
  });

  it('never takes months or weekdays for people ("April, I met John")', async () => {
    const { entities, facts } = await run('April, I met John in Paris.');
    expect(entities.map((e) => e.name).sort()).toEqual(['Emi', 'John', 'Paris']);
    expect(facts.find((f) => f.predicate === 'knows')).toMatchObject({ object: 'John', time_expression: 'April' });
  });

  it('types unknown names by the predicate they take part in', async () => {
    expect(types((await run('Stefan joined Beacon Capital.', null)).entities)).toEqual({ Stefan: 'person', 'Beacon Capital': 'organization' });
    expect(types((await run('Zorblat works at Quuxco.', null)).entities)).toEqual({ Zorblat: 'person', Quuxco: 'organization' });
    expect(types((await run('Zorblat lives in Quuxville.', null)).entities)).toEqual({ Zorblat: 'person', Quuxville: 'place' });
  });

  it('dedupes within the episode, alias-aware', async () => {
    const { entities, facts } = await run('Alice works at Acme Corp. Acme is a great company.', null);
    expect(entities).toEqual([
      { name: 'Alice', type: 'person', aliases: [] },
      { name: 'Acme Corp', type: 'organization', aliases: ['Acme'] },
    ]);
    expect(triples(facts)).toEqual(['Alice works_at Acme Corp', 'Acme Corp is_a great company']);
  });

  it('does not invent entities from capitalized chat openers', async () => {
    const { entities } = await run('Hey Liza! How are you today? Cold here. Id think so.');
    expect(entities.map((e) => e.name)).toEqual(['Liza']);
  });

  it('multi-word names, honorifics, organization suffixes and project names', async () => {
    expect(types((await run('John Smith reports to Maria Garcia.', null)).entities)).toEqual({ 'John Smith': 'person', 'Maria Garcia': 'person' });
    expect(types((await run('Dr. Smith quit Acme Inc. last year.', null)).entities)).toEqual({ Smith: 'person', 'Acme Inc': 'organization' });
    const phoenix = await run('Project Phoenix launched in March.', null);
    expect(types(phoenix.entities)).toEqual({ 'Project Phoenix': 'project' });
    expect(triples(phoenix.facts)).toEqual(['Project Phoenix has_status launched']);
  });
});
