import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { toVectorSql } from '../../core/db/pool.js';
import { nameKey } from '../../core/domain/canonical.js';
import { PREDICATES } from '../../core/domain/predicates.js';
import type { EmbeddingProvider } from '../../core/extraction/types.js';
import { refreshTermStats } from '../../core/retrieval/termStats.js';
import type { Corpus } from './corpus.js';

// Search indexes are built once after the load (much faster than maintaining them row by row).
const DEFERRED_INDEXES = [
  'episode_embedding_idx',
  'episode_tsv_idx',
  'episode_user_terms_idx',
  'fact_embedding_idx',
  'fact_tsv_idx',
  'entity_name_embedding_idx',
  'entity_name_trgm_idx',
];

const BATCH = 2000;
/** Inserts run on this many connections at once (the embedding is done by then, so they have the cores). */
const INSERT_LANES = 2;
const EMBED_BATCH = 256;

/** Runs `fn` over the items in batches, INSERT_LANES batches at a time. */
async function inBatches<T>(items: T[], fn: (batch: T[]) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: INSERT_LANES }, async () => {
      while (next < items.length) {
        const start = next;
        next += BATCH;
        await fn(items.slice(start, start + BATCH));
      }
    }),
  );
}

/**
 * Embeds every distinct text once, spread over the embedders (each runs its
 * model in a thread of its own, so two embedders use both cores). Generated
 * turns repeat (a million hold about 600,000 distinct texts), and embedding
 * is most of a load's time. Vectors are kept as float32, as the column
 * stores them.
 */
async function embedDistinct(texts: string[], embedders: EmbeddingProvider[], log: (m: string) => void): Promise<Map<string, Float32Array>> {
  const distinct = [...new Set(texts)];
  const vectors = new Map<string, Float32Array>();
  let next = 0;
  let reported = 0;
  await Promise.all(
    embedders.map(async (embedder) => {
      while (next < distinct.length) {
        const batch = distinct.slice(next, (next += EMBED_BATCH));
        const embedded = await embedder.embed(batch);
        batch.forEach((text, i) => vectors.set(text, Float32Array.from(embedded[i])));
        if (vectors.size - reported >= 50_000) {
          reported = vectors.size;
          log(`embedded ${vectors.size}/${distinct.length} distinct texts`);
        }
      }
    }),
  );
  return vectors;
}

export interface LoadReport {
  episodes: number;
  entities: number;
  facts: number;
  seconds: number;
  /** Where the time went: embedding the distinct texts, inserting, building the search indexes, VACUUM ANALYZE. */
  phase_seconds: { embed: number; insert: number; indexes: number; analyze: number };
  distinct_texts: number;
}

/**
 * Writes a generated corpus into one namespace with set-based inserts
 * (`unnest` of column arrays), the way extraction would have left it:
 * episodes with embeddings, entities (the user's own tagged with its id),
 * facts with provenance, entity mentions.
 */
export async function loadCorpus(
  pool: pg.Pool,
  namespace: string,
  corpus: Corpus,
  embedders: { embedder: EmbeddingProvider; nameEmbedder: EmbeddingProvider; textEmbedders?: EmbeddingProvider[] },
  log: (m: string) => void,
): Promise<LoadReport> {
  const { embedder, nameEmbedder } = embedders;
  const started = Date.now();
  const seconds = (since: number) => (Date.now() - since) / 1000;
  const texts = await embedDistinct(
    [...corpus.episodes.map((e) => e.content), ...corpus.facts.map((f) => f.text)],
    embedders.textEmbedders?.length ? embedders.textEmbedders : [embedder],
    log,
  );
  const embedSeconds = seconds(started);
  log(`embedded ${texts.size} distinct texts in ${embedSeconds.toFixed(1)} s`);
  const vectorOf = (text: string) => toVectorSql(Array.from(texts.get(text)!));
  const insertStarted = Date.now();
  await pool.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [namespace]);
  const { rows: defs } = await pool.query<{ indexname: string; indexdef: string }>(
    `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname = ANY($1)`,
    [DEFERRED_INDEXES],
  );
  for (const d of defs) await pool.query(`DROP INDEX IF EXISTS ${d.indexname}`);

  const userOf = (i: number) => corpus.users[i];
  const entityId = new Map<string, string>();
  const firstSeen = new Date(Date.UTC(2024, 5, 1));
  await inBatches(corpus.entities, async (batch) => {
    const ids = batch.map((e) => {
      const id = randomUUID();
      entityId.set(e.key, id);
      return id;
    });
    const vectors = (await nameEmbedder.embed(batch.map((e) => e.name))).map(toVectorSql);
    await pool.query(
      `INSERT INTO entity (id, namespace, scope_user, type, name, name_key, properties, name_embedding, embedding_model, first_seen_at, last_seen_at)
       SELECT u.id, $1, u.scope_user, u.type, u.name, u.name_key, u.properties::jsonb, u.emb::vector, $2, $3, $3
       FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[])
         AS u(id, scope_user, type, name, name_key, properties, emb)`,
      [
        namespace,
        nameEmbedder.model,
        firstSeen,
        ids,
        batch.map((e) => userOf(e.userIndex).id),
        batch.map((e) => e.type),
        batch.map((e) => e.name),
        batch.map((e) => nameKey(e.name)),
        batch.map((e) => JSON.stringify(e.isUser ? { user_id: userOf(e.userIndex).id } : {})),
        vectors,
      ],
    );
  });
  log(`entities: ${corpus.entities.length}`);

  const episodeIds = corpus.episodes.map(() => randomUUID());
  let done = 0;
  await inBatches(corpus.episodes.map((e, i) => ({ e, id: episodeIds[i] })), async (batch) => {
    const vectors = batch.map((b) => vectorOf(b.e.content));
    await pool.query(
      `INSERT INTO episode (id, namespace, user_id, speaker, content, occurred_at, recorded_at, status, workflow_id, embedding, embedding_model, extracted_at)
       SELECT u.id, $1, u.user_id, u.speaker, u.content, u.occurred_at, u.occurred_at, 'extracted', 'episode:' || u.id, u.emb::vector, $2, u.occurred_at
       FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::text[]) AS u(id, user_id, speaker, content, occurred_at, emb)`,
      [
        namespace,
        embedder.model,
        batch.map((b) => b.id),
        batch.map((b) => userOf(b.e.userIndex).id),
        batch.map((b) => userOf(b.e.userIndex).name),
        batch.map((b) => b.e.content),
        batch.map((b) => b.e.occurredAt),
        vectors,
      ],
    );
    const links = batch.flatMap((b) => b.e.mentions.map((m) => [entityId.get(m), b.id, m.split(':').slice(2).join(':')] as const)).filter((l) => l[0]);
    await pool.query(
      `INSERT INTO entity_episode (entity_id, episode_id, surface) SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]) ON CONFLICT DO NOTHING`,
      [links.map((l) => l[0]), links.map((l) => l[1]), links.map((l) => l[2])],
    );
    done += batch.length;
    if (done % 20_000 < BATCH) log(`episodes: ${done}/${corpus.episodes.length}`);
  });

  await inBatches(corpus.facts, async (batch) => {
    const ids = batch.map(() => randomUUID());
    const vectors = batch.map((f) => vectorOf(f.text));
    const confirmed = batch.map((f) => (f.episode !== null ? corpus.episodes[f.episode].occurredAt : new Date(Date.UTC(2026, 0, 1) - (f.userIndex % 90) * 86_400_000)));
    await pool.query(
      `INSERT INTO fact (id, namespace, scope_user, subject_id, predicate, predicate_raw, family, object_id, value, fact_text, memory_kind,
                         importance, confidence, decay_class, last_confirmed_at, valid_from, recorded_at, source, sensitivity, embedding, embedding_model)
       SELECT u.id, $1, u.scope_user, u.subject_id, u.predicate, u.predicate, u.family, u.object_id, u.value, u.fact_text, 'semantic',
              0.5, 0.7, u.decay_class, u.confirmed, u.valid_from, u.confirmed, 'bench:generator', 'internal', u.emb::vector, $2
       FROM unnest($3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::uuid[], $9::text[], $10::text[], $11::text[],
                   $12::timestamptz[], $13::timestamptz[], $14::text[])
         AS u(id, scope_user, subject_id, predicate, family, object_id, value, fact_text, decay_class, confirmed, valid_from, emb)`,
      [
        namespace,
        embedder.model,
        ids,
        batch.map((f) => userOf(f.userIndex).id),
        batch.map((f) => entityId.get(f.subject)),
        batch.map((f) => f.predicate),
        batch.map((f) => PREDICATES[f.predicate]?.family ?? f.family),
        batch.map((f) => (f.object ? entityId.get(f.object) : null)),
        batch.map((f) => f.value),
        batch.map((f) => f.text),
        batch.map((f) => f.decayClass),
        confirmed,
        batch.map((f) => f.validFrom),
        vectors,
      ],
    );
    const links: Array<[string, string]> = [];
    batch.forEach((f, i) => {
      if (f.episode !== null) links.push([ids[i], episodeIds[f.episode]]);
    });
    await pool.query(
      `INSERT INTO fact_episode (fact_id, episode_id, relation) SELECT u.f, u.e, 'created' FROM unnest($1::uuid[], $2::uuid[]) AS u(f, e)`,
      [links.map((l) => l[0]), links.map((l) => l[1])],
    );
  });
  log(`facts: ${corpus.facts.length}; building search indexes`);
  const insertSeconds = seconds(insertStarted);

  const indexesStarted = Date.now();
  await buildIndexes(pool, defs, corpus.episodes.length, log);
  const indexSeconds = seconds(indexesStarted);
  const analyzeStarted = Date.now();
  await analyzeLoaded(pool);
  return {
    episodes: corpus.episodes.length,
    entities: corpus.entities.length,
    facts: corpus.facts.length,
    seconds: seconds(started),
    phase_seconds: { embed: embedSeconds, insert: insertSeconds, indexes: indexSeconds, analyze: seconds(analyzeStarted) },
    distinct_texts: texts.size,
  };
}

/** Builds the search indexes dropped for the load, on one connection with room to build them in memory. */
async function buildIndexes(pool: pg.Pool, defs: Array<{ indexname: string; indexdef: string }>, episodes: number, log: (m: string) => void): Promise<void> {
  const client = await pool.connect();
  try {
    // A million episodes' HNSW graph is about 2 GB: built in memory it takes minutes, spilled far longer.
    await client.query(`SET maintenance_work_mem = '${episodes > 200_000 ? '4GB' : '1GB'}'`);
    for (const d of defs) {
      const t = Date.now();
      await client.query(d.indexdef);
      log(`  ${d.indexname}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
    }
  } finally {
    client.release();
  }
}

/** What autovacuum and the search-stats schedule would do a few minutes later in production. */
async function analyzeLoaded(pool: pg.Pool): Promise<void> {
  for (const table of ['episode', 'fact', 'entity', 'entity_episode', 'fact_episode']) await pool.query(`VACUUM ANALYZE ${table}`);
  await refreshTermStats(pool);
}
