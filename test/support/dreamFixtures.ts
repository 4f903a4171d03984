import { randomUUID } from 'node:crypto';
import { toVectorSql } from '../../core/db/pool.js';
import { nameKey } from '../../core/domain/canonical.js';
import { DREAM_WORKFLOW_TYPE, dreamWorkflowId, type DreamInput, type DreamReport } from '../../core/dream/contracts.js';
import type { TestStack } from './stack.js';

/** Graph rows written directly (the dream works on what is stored, however it got there). */
export function dreamFixtures(stack: () => TestStack) {
  const pool = () => stack().deps.pool;

  async function namespace(prefix: string): Promise<string> {
    const ns = `${prefix}-${randomUUID().slice(0, 8)}`;
    await pool().query('INSERT INTO namespace (id) VALUES ($1)', [ns]);
    return ns;
  }

  async function entity(ns: string, name: string, type = 'person', aliases: string[] = []): Promise<string> {
    const id = randomUUID();
    const [vector] = await stack().deps.nameEmbedder.embed([name]);
    await pool().query(
      `INSERT INTO entity (id, namespace, type, name, name_key, aliases, name_embedding, embedding_model, first_seen_at, last_seen_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::vector, $8, now(), now())`,
      [id, ns, type, name, nameKey(name), aliases, toVectorSql(vector), stack().deps.nameEmbedder.model],
    );
    return id;
  }

  async function fact(
    ns: string,
    subjectId: string,
    f: { text: string; confidence: number; decayClass: 'permanent' | 'slow_decay' | 'fast_decay'; confirmedAt: Date; embeddingModel?: string },
  ): Promise<string> {
    const id = randomUUID();
    const [vector] = await stack().deps.embedder.embed([f.text]);
    await pool().query(
      `INSERT INTO fact (id, namespace, subject_id, predicate, predicate_raw, family, value, fact_text, memory_kind, confidence, decay_class,
                         last_confirmed_at, source, sensitivity, embedding, embedding_model)
       VALUES ($1, $2, $3, 'likes', 'likes', 'preferences', $4, $4, 'semantic', $5, $6, $7, 'test', 'internal', $8::vector, $9)`,
      [id, ns, subjectId, f.text, f.confidence, f.decayClass, f.confirmedAt, toVectorSql(vector), f.embeddingModel ?? stack().deps.embedder.model],
    );
    return id;
  }

  /** Starts a dream run through Temporal, as the API does. */
  async function startDream(input: DreamInput & { runId: string }) {
    return stack().deps.temporal.client.workflow.start(DREAM_WORKFLOW_TYPE, {
      workflowId: dreamWorkflowId(input.runId),
      taskQueue: stack().deps.temporal.taskQueue,
      args: [input],
    });
  }

  /** Starts a dream run and waits for its report. */
  async function runDream(input: DreamInput & { runId: string }): Promise<DreamReport> {
    return (await startDream(input)).result();
  }

  /** A report's counts per pass, without its timings. */
  const counts = (r: DreamReport) => Object.fromEntries(Object.entries(r.passes).map(([pass, { seconds: _s, ...c }]) => [pass, c]));

  return { namespace, entity, fact, startDream, runDream, counts };
}
