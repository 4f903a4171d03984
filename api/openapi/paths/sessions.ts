import { sessionQuerySchema, taskParamsSchema, turnBodySchema } from '../../routes/sessions.js';
import { sessionViewSchema, turnAckSchema } from '../../schemas/responses/sessions.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const tags = ['Sessions'];

export function sessionPaths(api: ApiCatalogue): void {
  api.add({
    method: 'post',
    path: '/v1/sessions/{task_id}/turns',
    tags,
    summary: "Append a turn to the task's working memory",
    request: { params: taskParamsSchema, body: jsonBody(turnBodySchema, { example: { role: 'user', content: 'Book the 9:40 train.', user_id: 'nadia' } }) },
    ok: { 202: json('The turn is durable', turnAckSchema) },
    errors: [403],
  });
  api.add({
    method: 'get',
    path: '/v1/sessions/{task_id}',
    tags,
    summary: "The task's working context: summary and the turns since",
    request: { params: taskParamsSchema, query: sessionQuerySchema },
    ok: { 200: json('The session', sessionViewSchema) },
    errors: [400, 403, 404],
  });
}
