import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MnemoApi } from './mnemoApi.js';
import { registerMnemoTools } from './tools.js';

const INSTRUCTIONS =
  'Mnemo is long-term memory. Call get_context at the start of a conversation for what is known about the user; ' +
  'remember durable facts, preferences and decisions as they come up; search_memory, get_facts and get_entity answer questions from memory; ' +
  'forget removes what the user asks you to forget. add_session_turn and get_session keep the working memory of one task.';

/** An MCP server exposing Mnemo's tools, acting through `api` (one per stdio process, one per HTTP request). */
export function createMnemoMcpServer(api: MnemoApi): McpServer {
  const server = new McpServer({ name: 'mnemo', title: 'Mnemo memory', version: '0.1.0' }, { instructions: INSTRUCTIONS });
  registerMnemoTools(server, api);
  return server;
}
