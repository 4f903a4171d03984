import { z } from 'zod';
import {
  threadCreateBodySchema,
  threadListQuerySchema,
  threadMessageBodySchema,
  threadParamsSchema,
  threadQuerySchema,
  threadStreamQuerySchema,
} from '../../routes/threads.js';
import { threadMessageSchema, threadPageSchema, threadSchema, threadWithMessagesSchema } from '../../schemas/responses/threads.js';
import { json, jsonBody, type ApiCatalogue } from '../registry.js';

const tags = ['Threads'];

export function threadPaths(api: ApiCatalogue): void {
  api.add({
    method: 'post',
    path: '/v1/threads',
    tags,
    summary: 'Open a thread between agents',
    request: { body: jsonBody(threadCreateBodySchema, { example: { title: 'Trip to Lisbon', participants: ['planner', 'booker'] } }) },
    ok: { 201: json('The thread', threadSchema) },
    errors: [403],
  });
  api.add({
    method: 'post',
    path: '/v1/threads/{id}/messages',
    tags,
    summary: 'Post a message (sender: a participant, or `user`)',
    request: { params: threadParamsSchema, body: jsonBody(threadMessageBodySchema, { example: { sender: 'planner', content: 'Flights booked for the 14th.' } }) },
    ok: { 201: json('The message', threadMessageSchema) },
    errors: [403, 404],
  });
  api.add({
    method: 'get',
    path: '/v1/threads',
    tags,
    summary: 'List threads (with `participant` and `waiting=true`: the threads waiting for that agent)',
    request: { query: threadListQuerySchema },
    ok: { 200: json('One page, most recently active first', threadPageSchema) },
    errors: [400, 403],
  });
  api.add({
    method: 'get',
    path: '/v1/threads/{id}',
    tags,
    summary: 'A thread and a page of its messages (oldest first, after `after`)',
    request: { params: threadParamsSchema, query: threadQuerySchema },
    ok: { 200: json('The thread and messages', threadWithMessagesSchema) },
    errors: [400, 403, 404],
  });
  api.add({
    method: 'get',
    path: '/v1/threads/{id}/stream',
    tags,
    summary: 'Server-Sent Events of new messages; resume with Last-Event-ID',
    description:
      'Each `message` event has the message seq as its id and the message JSON (ThreadMessage) as its data; comments are heartbeats. ' +
      'Without Last-Event-ID (header or `last_event_id`) the stream starts after the newest message.',
    request: {
      params: threadParamsSchema,
      query: threadStreamQuerySchema,
      headers: z.object({ 'last-event-id': z.string().optional().meta({ description: 'The seq of the last message received' }) }),
    },
    ok: { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: z.string() } } } },
    errors: [400, 403, 404],
  });
}
