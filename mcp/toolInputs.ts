import { z } from 'zod';
import { isoInstantSchema, namespaceSchema, scopeIdSchema, uuidSchema } from '../api/schemas/common.js';
import { ENTITY_TYPES, PREDICATE_FAMILIES } from '../core/domain/types.js';
import { TURN_ROLES } from '../core/sessions/rows.js';

/*
 * The input of each MCP tool, as zod raw shapes (the SDK turns them into the JSON Schema the model sees).
 * Field schemas are the API's own (api/schemas/common.ts); the API validates every call again, so its
 * finer limits (byte sizes, time zones) come back as tool errors naming the field.
 */

const namespace = namespaceSchema
  .optional()
  .describe('Memory namespace (tenant) to use. Omit it: a namespaced key uses its own namespace, others use "default".');
const userId = scopeIdSchema.optional().describe('The person the memory is about, e.g. "alice". Omit for memories not tied to one user.');
const agentId = scopeIdSchema.optional().describe('The agent this memory belongs to, when agents keep separate memories.');
const runId = scopeIdSchema.optional().describe('One run or conversation of an agent, to narrow recall to it.');
const asOf = isoInstantSchema.optional().describe('Answer as the memory stood at this instant (ISO 8601 with time zone), e.g. "2026-01-10T09:00:00Z". Omit for now.');
const query = z.string().trim().min(1, 'must not be empty').max(20_000, 'must be at most 20000 characters');
const text = z.string().refine((s) => s.trim().length > 0, 'must not be empty');

/** `remember` → `POST /v1/memories`. */
export const rememberInput = {
  content: text.describe('What to remember, in plain words: a statement, an observation, or a message of the conversation. One memory per fact or event works best.'),
  namespace,
  user_id: userId,
  agent_id: agentId,
  run_id: runId,
  speaker: z.string().trim().min(1).max(200).optional().describe('Who said or wrote it, e.g. "alice" or "assistant".'),
  occurred_at: isoInstantSchema.optional().describe('When it happened or was said (ISO 8601 with time zone). Omit for now.'),
  source: z.string().trim().min(1).max(500).optional().describe('Where it came from, e.g. "chat", "email:1234".'),
  timezone: z.string().trim().min(1).max(100).optional().describe('IANA time zone of the writer, e.g. "Europe/Oslo": relative dates such as "tomorrow" resolve in it.'),
  metadata: z.record(z.string(), z.unknown()).optional().describe('Free-form JSON kept with the memory.'),
};

/** `search_memory` → `POST /v1/search`. */
export const searchInput = {
  query: query.describe('What to look for, in natural language, e.g. "where does Alice work?".'),
  namespace,
  user_id: userId,
  agent_id: agentId,
  run_id: runId,
  as_of: asOf,
  k: z.number().int().min(1).max(100).optional().describe('How many results to return (1-100, default 10).'),
  kinds: z
    .array(z.enum(['episodes', 'facts', 'entities']))
    .min(1)
    .optional()
    .describe('Which kinds of results: stored memories ("episodes"), extracted facts, entities. Default all three.'),
};

/** `get_context` → `POST /v1/context`. */
export const contextInput = {
  query: query.optional().describe('The current topic or user message; memories relevant to it are included. Omit for a general profile.'),
  namespace,
  user_id: userId,
  agent_id: agentId,
  run_id: runId,
  as_of: asOf,
  max_tokens: z.number().int().min(1).max(32_000).optional().describe('Token budget of the returned block (default 1000).'),
};

/** `get_facts` → `GET /v1/facts` (that route is scoped by namespace and user only). */
export const factsInput = {
  namespace,
  user_id: userId,
  subject: z.string().trim().min(1).max(200).optional().describe('Only facts about this entity name, e.g. "Alice".'),
  predicate: z.string().trim().regex(/^[a-z][a-z0-9_]*$/, 'snake_case predicate').optional().describe('Only this relation, snake_case, e.g. "works_at", "lives_in", "prefers".'),
  family: z.enum(PREDICATE_FAMILIES).optional().describe('Only this family of relations.'),
  as_of: asOf,
  include_invalidated: z.boolean().optional().describe('Also facts that were true once but have been superseded (history). Default false.'),
  limit: z.number().int().min(1).max(500).optional().describe('Most facts to return (1-500, default 100).'),
};

/** `get_entity` → `GET /v1/entities/:id`, found by id or by name (`GET /v1/entities?q=`). */
export const entityInput = {
  id: uuidSchema.optional().describe('The entity id (UUID), as returned by search_memory or get_facts.'),
  name: z.string().trim().min(1).max(200).optional().describe('The entity name or alias, e.g. "Alice" or "Acme Corp"; the best match is returned. Use when you have no id.'),
  type: z.enum(ENTITY_TYPES).optional().describe('With name: only entities of this type.'),
  namespace,
  user_id: userId,
  as_of: asOf,
};

export const FORGET_KINDS = ['memory', 'fact', 'entity'] as const;

/** `forget` → `POST /v1/{memories|facts|entities}/:id/forget` (the key's namespace; no other scoping). */
export const forgetInput = {
  kind: z.enum(FORGET_KINDS).default('memory').describe('What the id names: a stored memory (default), one fact, or an entity (with every fact about it).'),
  id: uuidSchema.describe('The id of the memory, fact or entity to forget.'),
};

const taskId = scopeIdSchema.describe('Your task or conversation id: turns with the same id form one session, e.g. "ticket-4711".');

/** `add_session_turn` → `POST /v1/sessions/:task_id/turns`. */
export const sessionTurnInput = {
  task_id: taskId,
  role: z.enum(TURN_ROLES).describe('Who produced the turn.'),
  content: text.describe('The text of the turn.'),
  // Any JSON value (not z.json(): its recursive $ref schema trips some model clients); the API checks it is JSON.
  tool_result: z.unknown().optional().describe('With role "tool": the tool\'s JSON result (any JSON value).'),
  namespace,
  user_id: userId,
  agent_id: agentId,
  ttl_seconds: z.number().int().min(1).max(365 * 24 * 3600).optional().describe('Seconds of inactivity after which the session is summarised into long-term memory (default 1 hour).'),
};

/** `get_session` → `GET /v1/sessions/:task_id`. */
export const getSessionInput = {
  task_id: taskId,
  namespace,
};

type Input<Shape extends z.ZodRawShape> = z.output<z.ZodObject<Shape>>;
export type RememberInput = Input<typeof rememberInput>;
export type SearchInput = Input<typeof searchInput>;
export type ContextInput = Input<typeof contextInput>;
export type FactsInput = Input<typeof factsInput>;
export type EntityInput = Input<typeof entityInput>;
export type ForgetKind = (typeof FORGET_KINDS)[number];
export type SessionTurnInput = Input<typeof sessionTurnInput>;
export type GetSessionInput = Input<typeof getSessionInput>;
