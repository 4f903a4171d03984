import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createApp } from '../../api/app.js';
import { buildDeps, type BuiltDeps } from '../../core/buildDeps.js';
import { HASH_EMBEDDING_MODEL, loadConfig, SCHEMA_EMBEDDING_DIM } from '../../core/config/config.js';
import { toVectorSql } from '../../core/db/pool.js';
import { nameKey } from '../../core/domain/canonical.js';
import type { DecayClass, EntityType, MemoryKind, PredicateFamily } from '../../core/domain/types.js';
import { HashingEmbedder } from '../../core/embedding/hashing.js';
import { createTestDatabase } from './db.js';
import { testTemporalAddress } from './temporal.js';

/**
 * Direct-SQL fixtures for read-path tests: namespaces, episodes, entities,
 * facts and provenance with real local-embedder vectors, so retrieval runs on
 * exactly the rows a test describes (no extraction involved).
 */
export const embedder = new HashingEmbedder(SCHEMA_EMBEDDING_DIM, HASH_EMBEDDING_MODEL);
const vec = (text: string) => toVectorSql(embedder.embedOne(text));

type Db = Pick<pg.Pool, 'query'>;

export async function ensureNamespace(db: Db, id: string): Promise<void> {
  await db.query('INSERT INTO namespace (id) VALUES ($1) ON CONFLICT DO NOTHING', [id]);
}

export interface EpisodeFixture {
  namespace: string;
  content: string;
  occurredAt: Date | string;
  userId?: string | null;
  agentId?: string | null;
  runId?: string | null;
  speaker?: string | null;
  metadata?: Record<string, unknown>;
  forgottenAt?: Date | string | null;
  /** Leave the embedding NULL (e.g. an episode whose embedding failed). */
  noEmbedding?: boolean;
}

export async function insertEpisode(db: Db, e: EpisodeFixture): Promise<string> {
  const id = randomUUID();
  await ensureNamespace(db, e.namespace);
  await db.query(
    `INSERT INTO episode (id, namespace, user_id, agent_id, run_id, speaker, content, metadata, occurred_at, status, workflow_id,
                          embedding, embedding_model, forgotten_at, extracted_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'extracted', $10, $11::vector, $12, $13, now())`,
    [
      id,
      e.namespace,
      e.userId ?? null,
      e.agentId ?? null,
      e.runId ?? null,
      e.speaker ?? null,
      e.content,
      JSON.stringify(e.metadata ?? {}),
      e.occurredAt,
      `episode:${id}`,
      e.noEmbedding ? null : vec(e.content),
      e.noEmbedding ? null : embedder.model,
      e.forgottenAt ?? null,
    ],
  );
  return id;
}

export interface EntityFixture {
  namespace: string;
  name: string;
  type?: EntityType;
  aliases?: string[];
  scopeUser?: string;
  summary?: string | null;
  properties?: Record<string, unknown>;
  firstSeenAt?: Date | string;
  lastSeenAt?: Date | string;
  forgottenAt?: Date | string | null;
  /** Episodes that mention it (entity_episode). */
  episodeIds?: string[];
}

export async function insertEntity(db: Db, n: EntityFixture): Promise<string> {
  const id = randomUUID();
  await ensureNamespace(db, n.namespace);
  const firstSeen = n.firstSeenAt ?? '2026-01-01T00:00:00Z';
  await db.query(
    `INSERT INTO entity (id, namespace, scope_user, type, name, name_key, aliases, summary, properties, name_embedding, embedding_model,
                         first_seen_at, last_seen_at, forgotten_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::vector, $11, $12, $13, $14)`,
    [
      id,
      n.namespace,
      n.scopeUser ?? '',
      n.type ?? 'person',
      n.name,
      nameKey(n.name),
      n.aliases ?? [],
      n.summary ?? null,
      JSON.stringify(n.properties ?? {}),
      vec(n.name),
      embedder.model,
      firstSeen,
      n.lastSeenAt ?? firstSeen,
      n.forgottenAt ?? null,
    ],
  );
  for (const episodeId of n.episodeIds ?? []) {
    await db.query('INSERT INTO entity_episode (entity_id, episode_id, surface) VALUES ($1, $2, $3)', [id, episodeId, n.name]);
  }
  return id;
}

export interface FactFixture {
  namespace: string;
  subjectId: string;
  predicate: string;
  factText: string;
  objectId?: string | null;
  value?: string | null;
  family?: PredicateFamily;
  scopeUser?: string;
  memoryKind?: MemoryKind;
  importance?: number;
  confidence?: number;
  decayClass?: DecayClass;
  lastConfirmedAt?: Date | string;
  validFrom?: Date | string | null;
  invalidAt?: Date | string | null;
  recordedAt?: Date | string;
  expiredAt?: Date | string | null;
  forgottenAt?: Date | string | null;
  source?: string;
  sensitivity?: string;
  episodeIds?: string[];
}

export async function insertFact(db: Db, f: FactFixture): Promise<string> {
  const id = randomUUID();
  await db.query(
    `INSERT INTO fact (id, namespace, scope_user, subject_id, predicate, predicate_raw, family, object_id, value, fact_text, memory_kind,
                       importance, confidence, decay_class, last_confirmed_at, valid_from, invalid_at, recorded_at, expired_at,
                       source, sensitivity, embedding, embedding_model, forgotten_at)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21::vector, $22, $23)`,
    [
      id,
      f.namespace,
      f.scopeUser ?? '',
      f.subjectId,
      f.predicate,
      f.family ?? 'other',
      f.objectId ?? null,
      f.objectId ? null : (f.value ?? 'yes'),
      f.factText,
      f.memoryKind ?? 'semantic',
      f.importance ?? 0.5,
      f.confidence ?? 0.7,
      f.decayClass ?? 'slow_decay',
      f.lastConfirmedAt ?? '2026-01-01T00:00:00Z',
      f.validFrom ?? null,
      f.invalidAt ?? null,
      f.recordedAt ?? '2026-01-01T00:00:00Z',
      f.expiredAt ?? null,
      f.source ?? 'test:fixture',
      f.sensitivity ?? 'internal',
      vec(f.factText),
      embedder.model,
      f.forgottenAt ?? null,
    ],
  );
  for (const episodeId of f.episodeIds ?? []) {
    await db.query(`INSERT INTO fact_episode (fact_id, episode_id, relation) VALUES ($1, $2, 'created')`, [id, episodeId]);
  }
  return id;
}

export const ADMIN_KEY = 'test-admin-key-0123456789';

export interface ReadApi {
  deps: BuiltDeps;
  baseUrl: string;
  request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; body: T }>;
  close(): Promise<void>;
}

/** The real app on an ephemeral port over `databaseUrl`, with a fixed clock so decay and freshness are deterministic. */
export async function startReadApi(databaseUrl: string, now: Date): Promise<ReadApi> {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: testTemporalAddress(),
    MNEMO_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    // The fixtures' vectors are feature-hashed: queries must be embedded the same way.
    EMBEDDING_PROVIDER: 'hash',
  } as NodeJS.ProcessEnv);
  const deps = buildDeps(config, { now: () => now });
  const server: Server = await new Promise((resolve) => {
    const s = createApp(deps).listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    deps,
    baseUrl,
    async request<T>(method: string, path: string, body?: unknown, key = ADMIN_KEY) {
      const res = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await deps.close();
    },
  };
}

/**
 * For a describe block: a fresh database and the read API over it before its
 * tests (`seed` fills it through the API's pool), both removed after them.
 */
export function useReadApi(now: Date, seed: (api: ReadApi) => Promise<void>): void {
  let drop: (() => Promise<void>) | undefined;
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = () => db.drop();
    const api = await startReadApi(db.url, now);
    close = () => api.close();
    await seed(api);
  });
  afterAll(async () => {
    await close?.();
    await drop?.();
  });
}
