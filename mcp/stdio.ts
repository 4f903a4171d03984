import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { pino } from 'pino';
import { loadMcpConfig } from './config.js';
import { httpMnemoApi } from './httpMnemoApi.js';
import { createMnemoMcpServer } from './server.js';

/**
 * `npm run mcp`: Mnemo's tools over stdio for a local MCP client, acting on the API at MNEMO_URL
 * with MNEMO_API_KEY. stdout carries the protocol, so logs go to stderr.
 */
async function main(): Promise<void> {
  const config = loadMcpConfig(process.env);
  const logger = pino({ level: config.LOG_LEVEL, base: { service: 'mnemo-mcp' } }, pino.destination(2));
  const server = createMnemoMcpServer(httpMnemoApi({ baseUrl: config.MNEMO_URL, apiKey: config.MNEMO_API_KEY }));
  const transport = new StdioServerTransport();
  transport.onerror = (err) => logger.error({ err }, 'stdio transport error');
  await server.connect(transport);
  logger.info({ url: config.MNEMO_URL, authenticated: config.MNEMO_API_KEY !== undefined }, 'Mnemo MCP server on stdio');
  const stop = () => void server.close().finally(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdin.once('end', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
