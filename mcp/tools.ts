import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MnemoApi } from './mnemoApi.js';
import { runTool, toolFailure } from './toolResult.js';
import {
  contextInput,
  entityInput,
  factsInput,
  forgetInput,
  getSessionInput,
  rememberInput,
  searchInput,
  sessionTurnInput,
  type EntityInput,
} from './toolInputs.js';

/** Candidates shown beside the entity a name lookup picked, so the model can ask again by id. */
const NAME_CANDIDATES = 5;

export const TOOL_NAMES = ['remember', 'search_memory', 'get_context', 'get_facts', 'get_entity', 'forget', 'add_session_turn', 'get_session'] as const;

/** The entity a `get_entity` call names: by id, or the best match of its name (with the runners-up). */
async function lookUpEntity(api: MnemoApi, { id, name, type, ...scope }: EntityInput) {
  if (id) return api.entity(id, scope);
  const found = await api.findEntities({ ...scope, q: name!, type, limit: NAME_CANDIDATES });
  const matches = (Array.isArray(found.entities) ? found.entities : []) as Array<{ id: string; name: string; type: string; score?: number }>;
  if (!matches.length) return Promise.reject({ code: 'not_found', message: `No entity named like "${name}" in this scope`, details: null });
  const memory = await api.entity(matches[0].id, scope);
  const others = matches.slice(1).map(({ id: otherId, name: otherName, type: otherType, score }) => ({ id: otherId, name: otherName, type: otherType, score }));
  return { ...memory, other_matches: others };
}

/** Registers Mnemo's eight tools; each calls the API through `api`, so auth, scoping and validation are the API's. */
export function registerMnemoTools(server: McpServer, api: MnemoApi): void {
  server.registerTool(
    'remember',
    {
      title: 'Remember',
      description:
        'Store something worth remembering in long-term memory: a fact about the user, a preference, a decision, an event. ' +
        'Returns at once with the memory id and status "pending"; facts and entities are extracted from it in the background within seconds. ' +
        'Set user_id to the person it is about so later recall for that user finds it.',
      inputSchema: rememberInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input) => runTool(() => api.remember(input)),
  );

  server.registerTool(
    'search_memory',
    {
      title: 'Search memory',
      description:
        'Search long-term memory with a natural-language query. Returns ranked results of three kinds: stored memories (episodes), ' +
        'extracted facts (subject, predicate, object, with validity times) and entities (people, places, organisations...). ' +
        'Use it to answer a question from what was remembered; each result has an id usable with get_entity or forget.',
      inputSchema: searchInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => runTool(() => api.search(input)),
  );

  server.registerTool(
    'get_context',
    {
      title: 'Get context',
      description:
        'Get a prompt-ready block of what is known: the current facts about the user and the memories most relevant to the query, ' +
        'within a token budget. Call it at the start of a conversation or turn and put the returned text in your context.',
      inputSchema: contextInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => runTool(() => api.context(input)),
  );

  server.registerTool(
    'get_facts',
    {
      title: 'Get facts',
      description:
        'List the facts currently believed true, as subject-predicate-object triples with confidence and validity times, ' +
        'filtered by subject, predicate or family. Use it for exact questions ("where does Alice work?") or to review what is known about someone.',
      inputSchema: factsInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => runTool(() => api.facts(input)),
  );

  server.registerTool(
    'get_entity',
    {
      title: 'Get entity',
      description:
        'Everything known about one entity (a person, organisation, place, project...): its name, aliases, summary and the facts ' +
        'where it is subject or object. Give its id, or its name (the best match is returned, with other close matches listed).',
      inputSchema: entityInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => {
      if (!input.id === !input.name) {
        return toolFailure('invalid_input', 'Give exactly one of id or name', [{ field: 'id', message: 'give exactly one of id or name' }]);
      }
      return runTool(() => lookUpEntity(api, input));
    },
  );

  server.registerTool(
    'forget',
    {
      title: 'Forget',
      description:
        'Forget a stored memory, one fact, or an entity, by id: it stops appearing in search, context and facts at once ' +
        '(kept for the audit trail; an operator can restore it). Use it when the user asks you to forget something or a memory is wrong.',
      inputSchema: forgetInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (input) => runTool(() => api.forget(input.kind, input.id)),
  );

  server.registerTool(
    'add_session_turn',
    {
      title: 'Add session turn',
      description:
        'Append one turn (user, assistant, tool or system message) to the working memory of a task or conversation. ' +
        'Sessions are summarised as they grow, and when idle their summary becomes long-term memory. Returns the turn index.',
      inputSchema: sessionTurnInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input) => runTool(() => api.addSessionTurn(input)),
  );

  server.registerTool(
    'get_session',
    {
      title: 'Get session',
      description:
        'Read the working memory of a task or conversation: its running summary and recent turns, in order. ' +
        'Use it to resume a task after a restart or hand-over.',
      inputSchema: getSessionInput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (input) => runTool(() => api.session(input)),
  );
}
