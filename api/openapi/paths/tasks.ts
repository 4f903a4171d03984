import { z } from 'zod';
import { budgetSchema, createSchema, listQuerySchema, noBodySchema, progressSchema } from '../../routes/tasks.js';
import { uuidSchema } from '../../schemas/common.js';
import { taskCreatedSchema, taskDetailSchema, taskListSchema, taskSignalAckSchema } from '../../schemas/responses/tasks.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const tags = ['Tasks'];
const idParams = z.object({ id: uuidSchema });

export function taskPaths(api: ApiCatalogue): void {
  api.add({
    method: 'post',
    path: '/v1/tasks',
    tags,
    summary: 'Create a persistent task (runs in bursts on a schedule)',
    request: { body: jsonBody(createSchema, { example: { intent: 'Check the build every 15 minutes', schedule: { every: '15m' }, webhook_url: 'https://agent.example/burst' } }) },
    ok: { 201: json('Created; its workflow runs', taskCreatedSchema) },
    errors: [403, 503],
  });
  api.add({
    method: 'get',
    path: '/v1/tasks',
    tags,
    summary: 'List tasks',
    request: { query: listQuerySchema },
    ok: { 200: json('Tasks', taskListSchema) },
    errors: [400, 403],
  });
  api.add({
    method: 'get',
    path: '/v1/tasks/{id}',
    tags,
    summary: "A task's live state (header Mnemo-Task-Source: workflow or database)",
    request: { params: idParams },
    ok: { 200: json('The task', taskDetailSchema) },
    errors: [404],
  });
  const signals: Array<[string, z.ZodType, string, boolean]> = [
    ['progress', progressSchema, 'Report progress (`done: true` completes the task)', true],
    ['budget', budgetSchema, 'Set the error budget (operator)', true],
    ['pause', noBodySchema, 'Pause the task', false],
    ['resume', noBodySchema, 'Resume a paused task', false],
    ['cancel', noBodySchema, 'Cancel the task', false],
  ];
  for (const [name, body, summary, required] of signals) {
    api.add({
      method: 'post',
      path: `/v1/tasks/{id}/${name}`,
      tags,
      summary,
      request: { params: idParams, body: jsonBody(body, { required }) },
      ok: { 202: json('Signalled to the task workflow', taskSignalAckSchema) },
      errors: name === 'budget' ? [403, 404, 409, 503] : [404, 409, 503],
    });
  }
}
