// `npm run keys -- create --namespace N --role agent [--label L]`, `npm run keys -- list [--namespace N]`,
// `npm run keys -- revoke <id>`: API key management from a shell, against DATABASE_URL (the same as POST/GET/DELETE /v1/keys).
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { newKeySchema } from '../api/routes/keys.js';
import { namespaceSchema, uuidSchema } from '../api/schemas/common.js';
import { createKey, listKeys, revokeKey } from '../core/auth/keyManagement.js';
import { ConfigError, loadConfig } from '../core/config/config.js';
import { createPool } from '../core/db/pool.js';

const USAGE = `Usage:
  npm run keys -- create --namespace <namespace> --role <agent|operator|admin> [--label <label>]
  npm run keys -- list [--namespace <namespace>]
  npm run keys -- revoke <key id>
Needs DATABASE_URL. The key is printed once; only its hash is stored.`;

const CAUSE = { actor: 'cli:keys' };

const commandSchema = z.discriminatedUnion('command', [
  z.object({ command: z.literal('create'), key: newKeySchema }),
  z.object({ command: z.literal('list'), namespace: namespaceSchema.optional() }),
  z.object({ command: z.literal('revoke'), id: uuidSchema }),
]);

function parseCommand(argv: string[]): z.infer<typeof commandSchema> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { namespace: { type: 'string' }, role: { type: 'string' }, label: { type: 'string' } },
  });
  const [command, id] = positionals;
  const input =
    command === 'create'
      ? { command, key: { namespace: values.namespace, role: values.role, ...(values.label !== undefined ? { label: values.label } : {}) } }
      : command === 'revoke'
        ? { command, id }
        : { command, namespace: values.namespace };
  return commandSchema.parse(input);
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

let parsed: z.infer<typeof commandSchema>;
let databaseUrl: string;
try {
  parsed = parseCommand(process.argv.slice(2));
  const config = loadConfig();
  if (!config.DATABASE_URL) fail(`DATABASE_URL is not set.\n\n${USAGE}`);
  databaseUrl = config.DATABASE_URL;
} catch (err) {
  if (err instanceof z.ZodError) fail(`${err.issues.map((i) => `${i.path.join('.') || 'command'}: ${i.message}`).join('\n')}\n\n${USAGE}`);
  if (err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) fail(`${(err as Error).message}\n\n${USAGE}`);
  throw err;
}

const pool = createPool(databaseUrl, 2);
try {
  if (parsed.command === 'create') {
    const created = await createKey(pool, { namespace: parsed.key.namespace, role: parsed.key.role, label: parsed.key.label ?? null }, CAUSE, new Date());
    process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
    process.stderr.write('Store the key now: it is not shown again.\n');
  } else if (parsed.command === 'list') {
    process.stdout.write(`${JSON.stringify({ keys: await listKeys(pool, { namespace: parsed.namespace }) }, null, 2)}\n`);
  } else {
    const revoked = await revokeKey(pool, parsed.id, CAUSE, new Date());
    if (!revoked) fail(`No API key ${parsed.id}`);
    process.stdout.write(`${JSON.stringify(revoked, null, 2)}\n`);
  }
} finally {
  await pool.end();
}
