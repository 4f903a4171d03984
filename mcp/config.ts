import { z } from 'zod';
import { configSchema } from '../core/config/config.js';

/** The API's own default port (core/config PORT), so `npm run api` and `npm run mcp` meet without configuration. */
const DEFAULT_API_URL = `http://127.0.0.1:${configSchema.shape.PORT.parse(undefined)}`;

const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

/** What `npm run mcp` reads from the environment: where the API is and which key to act with. */
export const mcpConfigSchema = z.object({
  MNEMO_URL: optionalString.pipe(z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).default(DEFAULT_API_URL)),
  MNEMO_API_KEY: optionalString,
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { error: 'must be one of: fatal, error, warn, info, debug, trace, silent' }).default('info'),
});
export type McpConfig = z.infer<typeof mcpConfigSchema>;

/** Parses the environment; a bad value throws naming the variable. */
export function loadMcpConfig(env: NodeJS.ProcessEnv): McpConfig {
  const parsed = mcpConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid MCP configuration: ${problems}`);
  }
  return parsed.data;
}
