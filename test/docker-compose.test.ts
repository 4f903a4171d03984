import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { configSchema, loadConfig } from '../core/config/config.js';
import { ROOT } from './support/paths.js';

// Docker cannot run on this machine: this checks the file's wiring instead.
const healthcheckSchema = z.object({ test: z.union([z.string(), z.array(z.string()).min(2)]) });
const serviceSchema = z.object({
  image: z.string().optional(),
  build: z.unknown().optional(),
  command: z.unknown().optional(),
  environment: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  ports: z.array(z.string()).optional(),
  depends_on: z.record(z.string(), z.object({ condition: z.string() })).optional(),
  healthcheck: healthcheckSchema.optional(),
  restart: z.string().optional(),
});
const composeSchema = z.object({ services: z.record(z.string(), serviceSchema) });

const compose = composeSchema.parse(parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }));
const services = compose.services;

/** Compose's `${VAR:-default}` / `${VAR:?message}` with nothing set in the shell, plus MNEMO_API_KEY as a user would set it. */
function interpolate(value: string | number | boolean): string {
  return String(value).replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (name === 'MNEMO_API_KEY') return 'a-user-chosen-admin-key-0123456789';
    if (op === '-') return arg ?? '';
    if (op === '?') throw new Error(`${name} is required: ${arg}`);
    return '';
  });
}

function envOf(service: string): Record<string, string> {
  const env = services[service]?.environment ?? {};
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(v)]));
}

/** Variables every api/worker container must receive (the embedded-only ones are absent on purpose). */
const APP_VARIABLES = [
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_TASK_QUEUE',
  'MNEMO_API_KEY',
  'LLM_PROVIDER',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'LLM_MODEL',
  'EMBEDDING_PROVIDER',
  'EMBEDDING_MODEL',
  'EMBEDDING_DIM',
  'LOG_LEVEL',
  'PORT',
  'HOST',
];
const EMBEDDED_ONLY = ['TEMPORAL_CLI_PATH', 'TEMPORAL_UI_PORT', 'DATA_DIR', 'MIGRATE_ON_START'];

describe('docker-compose.yml', () => {
  it('has Postgres with pgvector, Temporal and its UI, migrate, api and worker', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'migrate', 'postgres', 'temporal', 'temporal-ui', 'worker']);
    expect(services.postgres.image).toMatch(/^pgvector\/pgvector:pg1[5-9]/);
    expect(services.temporal.image).toMatch(/^temporalio\/(auto-setup|server)/);
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui/);
  });

  it('builds api, worker and migrate from the repository Dockerfile (node 20, npm ci, prisma generate)', () => {
    for (const name of ['api', 'worker', 'migrate']) expect(services[name].build).toBe('.');
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^FROM node:20/m);
    expect(dockerfile).toMatch(/npm ci/);
    expect(dockerfile).toMatch(/npm run generate/);
    expect(existsSync(path.join(ROOT, '.dockerignore'))).toBe(true);
    // node itself is PID 1's child, so docker's SIGTERM reaches the app's clean shutdown
    expect(services.api.command).toEqual(['node', '--import', 'tsx', 'api/main.ts']);
    expect(services.worker.command).toEqual(['node', '--import', 'tsx', 'workers/main.ts']);
    expect(services.migrate.command).toEqual(['npm', 'run', 'migrate']);
  });

  it('gives every long-running service a healthcheck', () => {
    const oneShot = Object.keys(services).filter((name) => services[name].restart === 'no');
    expect(oneShot).toEqual(['migrate']);
    for (const [name, service] of Object.entries(services)) {
      if (oneShot.includes(name)) continue;
      expect({ name, healthcheck: service.healthcheck }).toEqual({ name, healthcheck: expect.objectContaining({ test: expect.anything() }) });
    }
  });

  it.each(['api', 'worker', 'migrate'])('%s receives every variable the app needs, and only known ones', (name) => {
    const env = envOf(name);
    expect(APP_VARIABLES.filter((v) => !(v in env))).toEqual([]);
    const known = new Set(Object.keys(configSchema.shape));
    expect(Object.keys(env).filter((v) => !known.has(v))).toEqual([]);
    expect(Object.keys(env).filter((v) => EMBEDDED_ONLY.includes(v))).toEqual([]);
  });

  it.each(['api', 'worker', 'migrate'])('%s environment passes loadConfig and points at the compose services', (name) => {
    const config = loadConfig(envOf(name));
    expect(new URL(config.DATABASE_URL ?? '').hostname).toBe('postgres');
    expect(config.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(config.MNEMO_API_KEY).toBeDefined();
    expect(config.HOST).toBe('0.0.0.0');
  });

  it('requires MNEMO_API_KEY from the shell instead of shipping a default key', () => {
    expect(String(services.api.environment?.MNEMO_API_KEY)).toMatch(/^\$\{MNEMO_API_KEY:\?/);
  });

  it('starts things in order: migrate after Postgres is healthy, api and worker after migrate and Temporal', () => {
    expect(services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const name of ['api', 'worker']) {
      expect(services[name].depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        temporal: { condition: 'service_healthy' },
      });
    }
    expect(services.temporal.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    for (const service of Object.values(services)) {
      for (const dep of Object.keys(service.depends_on ?? {})) expect(Object.keys(services)).toContain(dep);
    }
  });

  it('wires Temporal and its UI to the same Postgres and frontend', () => {
    const temporal = envOf('temporal');
    const postgres = envOf('postgres');
    expect(temporal).toMatchObject({ POSTGRES_SEEDS: 'postgres', POSTGRES_USER: postgres.POSTGRES_USER, POSTGRES_PWD: postgres.POSTGRES_PASSWORD });
    expect(envOf('temporal-ui').TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(services['temporal-ui'].ports).toContain('8233:8080');
    expect(services.api.ports).toContain('8080:8080');
    const url = new URL(envOf('api').DATABASE_URL);
    expect([url.username, url.password, url.pathname]).toEqual([postgres.POSTGRES_USER, postgres.POSTGRES_PASSWORD, `/${postgres.POSTGRES_DB}`]);
  });

  it('uses healthchecks that exercise the app (readyz for the api, task-queue pollers for the worker)', () => {
    expect(services.api.healthcheck?.test).toEqual(['CMD', 'node', '--import', 'tsx', 'scripts/healthcheck.ts', 'api']);
    expect(services.worker.healthcheck?.test).toEqual(['CMD', 'node', '--import', 'tsx', 'scripts/healthcheck.ts', 'worker']);
    expect(existsSync(path.join(ROOT, 'scripts/healthcheck.ts'))).toBe(true);
  });
});
