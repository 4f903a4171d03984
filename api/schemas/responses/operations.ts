import { z } from 'zod';
import { instant, nullableInstant } from './common.js';

const count = z.number().int().nonnegative();
const seconds = z.number().nonnegative();

/** The dream report (core/dream/contracts.ts dreamReportSchema, which is zod/mini and so not usable by the generator). */
const dreamReportSchema = z.object({
  passes: z.object({
    decay: z.object({ facts_updated: count, stale_marked: count, seconds }),
    session_expiry: z.object({ sessions_checked: count, sessions_expired: count, seconds }),
    duplicates: z.object({ entities_checked: count, pairs_proposed: count, seconds }),
    reembed: z.object({ episodes_reembedded: count, facts_reembedded: count, seconds }),
  }),
  totals: z.object({ batches: count, seconds }),
});

export const dreamRunAckSchema = z.object({ run_id: z.uuid(), workflow_id: z.string() }).meta({ id: 'DreamRunAck' });

/** core/dream/runs.ts runView. */
export const dreamRunSchema = z
  .object({
    id: z.uuid(),
    namespace: z.string().nullable().meta({ description: 'null: a run over every namespace' }),
    status: z.enum(['running', 'completed', 'failed']),
    workflow_id: z.string(),
    requested_by: z.string().nullable(),
    started_at: instant,
    finished_at: nullableInstant,
    report: dreamReportSchema,
    error: z.string().nullable(),
  })
  .meta({ id: 'DreamRun' });

export const dreamRunListSchema = z.object({ runs: z.array(dreamRunSchema) }).meta({ id: 'DreamRunList' });

/** `GET|PATCH /v1/namespaces/:namespace`. */
export const namespaceSettingsSchema = z
  .object({ namespace: z.string(), timezone: z.string().nullable(), created_at: instant })
  .meta({ id: 'NamespaceSettings', example: { namespace: 'default', timezone: 'Europe/Oslo', created_at: '2026-01-01T00:00:00.000Z' } });

/** One entry of `GET /v1/audit` (core/governance/auditQuery.ts AuditEntryView). */
export const auditEntrySchema = z.object({
  id: z.string(),
  namespace: z.string(),
  actor: z.string(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string().nullable(),
  before: z.unknown(),
  after: z.unknown(),
  request_id: z.string().nullable(),
  workflow_id: z.string().nullable(),
  run_id: z.string().nullable(),
  episode_id: z.string().nullable(),
  created_at: instant,
});

export const auditPageSchema = z.object({ entries: z.array(auditEntrySchema), next_cursor: z.string().nullable() }).meta({ id: 'AuditPage' });

const checkSchema = z.object({ ok: z.boolean(), error: z.string().optional() });

export const healthSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
export const readySchema = z
  .object({ status: z.literal('ready'), checks: z.object({ postgres: checkSchema, temporal: checkSchema, migrations: checkSchema }) })
  .meta({ id: 'Ready' });
