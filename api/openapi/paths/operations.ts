import { z } from 'zod';
import { auditQuerySchema } from '../../routes/audit.js';
import { idParams as dreamIdParams, listQuerySchema as dreamListQuerySchema, runBodySchema } from '../../routes/dream.js';
import { settingsBodySchema } from '../../routes/namespaces.js';
import { namespaceSchema } from '../../schemas/common.js';
import { auditPageSchema, dreamRunAckSchema, dreamRunListSchema, dreamRunSchema, healthSchema, namespaceSettingsSchema, readySchema } from '../../schemas/responses/operations.js';
import { errorBodySchema } from '../../schemas/responses/common.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const namespaceParams = z.object({ namespace: namespaceSchema });

/** Dream runs, namespace settings, the audit log, health and this document. */
export function operationPaths(api: ApiCatalogue): void {
  api.add({
    method: 'post',
    path: '/v1/dream/run',
    tags: ['Dream'],
    summary: 'Start a dream run now (operator): decay, session expiry, duplicate proposals, re-embedding',
    request: { body: jsonBody(runBodySchema, { required: false, example: { namespace: 'default' } }) },
    ok: { 202: json('Started', dreamRunAckSchema) },
    errors: [403, 404, 503],
  });
  api.add({ method: 'get', path: '/v1/dream/runs', tags: ['Dream'], summary: 'Dream runs, newest first (operator)', request: { query: dreamListQuerySchema }, ok: { 200: json('Runs', dreamRunListSchema) }, errors: [400, 403] });
  api.add({ method: 'get', path: '/v1/dream/runs/{id}', tags: ['Dream'], summary: 'A dream run and its report (operator)', request: { params: dreamIdParams }, ok: { 200: json('The run', dreamRunSchema) }, errors: [403, 404] });
  api.add({
    method: 'get',
    path: '/v1/namespaces/{namespace}',
    tags: ['Namespaces'],
    summary: "A namespace's settings",
    request: { params: namespaceParams },
    ok: { 200: json('The settings', namespaceSettingsSchema) },
    errors: [400, 403, 404],
  });
  api.add({
    method: 'patch',
    path: '/v1/namespaces/{namespace}',
    tags: ['Namespaces'],
    summary: "Set a namespace's default time zone (operator; creates the namespace)",
    request: { params: namespaceParams, body: jsonBody(settingsBodySchema, { example: { timezone: 'Europe/Oslo' } }) },
    ok: { 200: json('The settings', namespaceSettingsSchema) },
    errors: [403],
  });
  api.add({ method: 'get', path: '/v1/audit', tags: ['Audit'], summary: 'Who changed what, when and why (operator)', request: { query: auditQuerySchema }, ok: { 200: json('One page, newest first', auditPageSchema) }, errors: [400, 403] });

  api.add({ method: 'get', path: '/healthz', tags: ['Health'], summary: 'The process is up', public: true, ok: { 200: json('Up', healthSchema) } });
  api.add({
    method: 'get',
    path: '/readyz',
    tags: ['Health'],
    summary: 'Postgres and Temporal reachable, migrations applied',
    public: true,
    ok: { 200: json('Ready', readySchema), 503: json('Not ready: `details` holds each check', errorBodySchema) },
  });
  api.add({
    method: 'get',
    path: '/openapi.json',
    tags: ['Docs'],
    summary: 'This document (OpenAPI 3.1)',
    public: true,
    ok: { 200: json('The OpenAPI document', z.record(z.string(), z.unknown())) },
  });
}
