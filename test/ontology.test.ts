import { HALF_LIFE_DAYS } from '../core/domain/decay.js';
import { describeOntology } from '../core/domain/ontology.js';
import { PREDICATES } from '../core/domain/predicates.js';
import { DECAY_CLASSES, ENTITY_TYPES, PREDICATE_FAMILIES } from '../core/domain/types.js';
import { HeuristicProvider } from '../core/extraction/heuristic/index.js';
import { factExtractionSystem } from '../core/extraction/openai/prompts.js';
import type { FactCandidate } from '../core/extraction/types.js';
import { ontologyResponseSchema } from '../api/routes/ontology.js';
import { createApiKey } from '../core/auth/apiKeys.js';
import { remember, startTestStack, type TestStack } from './support/stack.js';

/** The whole ontology (issue 20): new predicates, decisions as nodes, GET /v1/ontology. */

const provider = new HeuristicProvider();

async function triples(text: string, speaker: string | null = 'Emi'): Promise<string[]> {
  const episode = { text, speaker, occurredAt: '2026-02-01T00:00:00Z' };
  const { entities } = await provider.extractEntities(episode);
  const { facts } = await provider.extractFacts(episode, entities);
  return facts.map((f: FactCandidate) => `${f.subject} ${f.predicate} ${f.object ?? f.value}${f.negated ? ' !' : ''}`);
}

const NEW_PREDICATES = ['collaborates_with', 'advises', 'represents', 'member_of', 'founded', 'invested_in', 'belongs_to', 'authored', 'mentioned_in'];

describe('new predicates: a sentence that yields each, a near miss that must not', () => {
  it.each([
    ['collaborates_with', 'Ana collaborates with Acme Corp.', 'Ana collaborates_with Acme Corp', 'Ana collaborates with enthusiasm.'],
    ['collaborates_with', 'I work with Bob Smith.', 'Emi collaborates_with Bob Smith', 'I work with Python every day.'],
    ['advises', 'Maria advises Acme Corp.', 'Maria advises Acme Corp', 'Maria advises caution.'],
    ['represents', 'Tom represents Acme Corp.', 'Tom represents Acme Corp', 'The logo represents growth.'],
    ['member_of', 'Ana is a member of the Rotary Club.', 'Ana member_of Rotary Club', 'Ana is a member.'],
    ['member_of', 'Ana belongs to the Chess Club.', 'Ana member_of Chess Club', 'Ana is a fan of the Chess Club.'],
    ['founded', 'Ana founded Acme in 2019.', 'Ana founded Acme', 'Ana found her keys.'],
    ['founded', 'Acme was founded by Ana.', 'Ana founded Acme', 'Acme was found by Ana.'],
    ['invested_in', 'Sequoia invested in Acme Corp.', 'Sequoia invested_in Acme Corp', 'I invested time in learning French.'],
    ['belongs_to', 'Project Atlas belongs to Acme Corp.', 'Project Atlas belongs_to Acme Corp', 'I belong here.'],
    ['authored', 'Ana wrote the Q3 report.', 'Ana authored Q3 report', 'Ana wrote to Bob.'],
    ['authored', 'Ana wrote the Q3 report.', 'Ana authored Q3 report', 'I wrote an email.'],
    ['mentioned_in', 'Acme was mentioned in the board meeting.', 'Acme mentioned_in board meeting', 'Ana mentioned the budget in the meeting.'],
  ])('%s: "%s" gives "%s", "%s" does not', async (predicate, sentence, expected, nearMiss) => {
    expect(await triples(sentence)).toContain(expected);
    const miss = await triples(nearMiss);
    expect({ nearMiss, hits: miss.filter((t) => t.split(' ').includes(predicate)) }).toEqual({ nearMiss, hits: [] });
  });

  it('covers every new predicate above, each in the table with its spec and fact text', async () => {
    for (const p of NEW_PREDICATES) expect(PREDICATES[p]).toEqual(expect.objectContaining({ family: expect.any(String), singleValued: false, description: expect.any(String) }));
    expect(PREDICATES.founded.decayClass).toBe('permanent');
    expect(PREDICATES.invested_in.family).toBe('financial');
    const episode = { text: 'Tom represents Acme Corp.', speaker: null, occurredAt: '2026-02-01T00:00:00Z' };
    const { facts } = await provider.extractFacts(episode, (await provider.extractEntities(episode)).entities);
    expect(facts[0]).toMatchObject({ family: 'work', fact_text: 'Tom represents Acme Corp.' });
  });

  it('recognizes the predicates already in the table', async () => {
    expect(await triples('I work on Project Phoenix.')).toContain('Emi works_on Project Phoenix');
    expect(await triples('Ana reports to Bob.')).toContain('Ana reports_to Bob');
    expect(await triples('Ana manages the design team.')).toContain('Ana manages design team');
    expect(await triples('I attended the Web Summit.')).toContain('Emi attended Web Summit');
    expect(await triples('My sister Ana lives in Oslo.')).toContain('Emi family_of Ana');
    expect(await triples('Project Phoenix is related to Project Atlas.')).toContain('Project Phoenix related_to Project Atlas');
    expect(await triples('Project Phoenix is related to everything.')).not.toContain(expect.stringContaining('related_to'));
  });

  it('gives the model the catalogue with each predicate and what it means', () => {
    const prompt = factExtractionSystem({ text: 'x', speaker: 'Emi', occurredAt: '2026-02-01T00:00:00Z' });
    for (const p of NEW_PREDICATES) expect(prompt).toContain(`${p} (${PREDICATES[p].description})`);
    expect(prompt).toContain('decided -> the decision');
  });
});

describe('decisions as nodes', () => {
  it('"We decided to move the launch to March" is a decision entity decided by the speaker', async () => {
    const episode = { text: 'We decided to move the launch to March.', speaker: 'Emi', occurredAt: '2026-02-01T00:00:00Z' };
    const { entities } = await provider.extractEntities(episode);
    expect(entities).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'move the launch to March', type: 'decision' })]));
    const { facts } = await provider.extractFacts(episode, entities);
    expect(facts).toEqual([
      expect.objectContaining({ subject: 'Emi', predicate: 'decided', object: 'move the launch to March', value: null, memory_kind: 'episode', time_expression: null, fact_text: 'Emi decided to move the launch to March.' }),
    ]);
  });

  it('links the decision to the project it concerns; a plain wish is no decision', async () => {
    expect(await triples('We decided to delay Project Phoenix until May.')).toEqual([
      'Emi decided delay Project Phoenix until May',
      'delay Project Phoenix until May concerns Project Phoenix',
    ]);
    expect(await triples('We want to delay Project Phoenix.')).not.toContain(expect.stringContaining('decided'));
  });
});

describe('through the pipeline and the API', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack.stop();
  });

  it('stores a decision node with its decided and concerns facts', async () => {
    const ns = 'onto-decision';
    const done = await remember(stack, { content: 'We decided to delay Project Phoenix until May.', speaker: 'Emi', namespace: ns });
    expect(done.status).toBe('extracted');
    const { rows } = await stack.deps.pool.query<{ subject: string; subject_type: string; predicate: string; object: string; object_type: string }>(
      `SELECT s.name AS subject, s.type AS subject_type, f.predicate, o.name AS object, o.type AS object_type
         FROM fact f JOIN entity s ON s.id = f.subject_id JOIN entity o ON o.id = f.object_id
        WHERE f.namespace = $1 AND f.expired_at IS NULL ORDER BY f.predicate`,
      [ns],
    );
    expect(rows).toEqual([
      { subject: 'delay Project Phoenix until May', subject_type: 'decision', predicate: 'concerns', object: 'Project Phoenix', object_type: 'project' },
      { subject: 'Emi', subject_type: 'person', predicate: 'decided', object: 'delay Project Phoenix until May', object_type: 'decision' },
    ]);
  });

  it('GET /v1/ontology answers any key with the code tables', async () => {
    const { key } = await createApiKey(stack.deps.pool, { role: 'agent', namespace: 'onto-agent' });
    const res = await stack.request<unknown>('GET', '/v1/ontology', undefined, key);
    expect(res.status).toBe(200);
    const body = ontologyResponseSchema.parse(res.body);
    expect(body).toEqual(describeOntology());
    expect(body.node_types.map((t) => t.name)).toEqual([...ENTITY_TYPES]);
    expect(body.node_types.map((t) => t.name)).toContain('decision');
    expect(body.predicates).toHaveLength(Object.keys(PREDICATES).length);
    for (const p of body.predicates) {
      const spec = PREDICATES[p.name];
      expect({ name: p.name, family: p.family, single: p.single_valued, decay: p.decay_class, description: p.description }).toEqual({
        name: p.name, family: spec.family, single: spec.singleValued, decay: spec.decayClass, description: spec.description,
      });
    }
    for (const p of NEW_PREDICATES) expect(body.predicates.map((x) => x.name)).toContain(p);
    expect(body.families.map((f) => f.name)).toEqual([...PREDICATE_FAMILIES]);
    expect(body.families.flatMap((f) => f.predicates).sort()).toEqual(Object.keys(PREDICATES).sort());
    expect(body.decay_classes).toEqual(DECAY_CLASSES.map((name) => ({ name, half_life_days: HALF_LIFE_DAYS[name] })));
    expect(body.decay_classes.find((d) => d.name === 'permanent')?.half_life_days).toBeNull();
    expect((await stack.request('GET', '/v1/ontology', undefined, 'not-a-key')).status).toBe(401);
  });
});
