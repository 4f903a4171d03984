import { Router } from 'express';
import type { Deps } from '../../core/deps.js';
import { pendingMigrations } from '../../core/db/migrate.js';
import { withDeadline } from '../../core/temporal/client.js';

interface Check {
  ok: boolean;
  error?: string;
}

async function check(fn: () => Promise<void>): Promise<Check> {
  try {
    await fn();
    return { ok: true };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

/** `/healthz`: the process is up. `/readyz`: Postgres and Temporal reachable, migrations applied. */
export function healthRoutes(deps: Pick<Deps, 'pool' | 'temporal'>): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res) => {
    const [postgres, temporal] = await Promise.all([
      check(async () => {
        await deps.pool.query('SELECT 1');
      }),
      check(async () => {
        await withDeadline(deps.temporal, 2_000, () =>
          deps.temporal.connection.workflowService.getSystemInfo({}).then(() => undefined),
        );
      }),
    ]);
    const migrations = postgres.ok
      ? await check(async () => {
          const pending = await pendingMigrations(deps.pool);
          if (pending.length) throw new Error(`pending migrations: ${pending.join(', ')}`);
        })
      : { ok: false, error: 'postgres unreachable' };
    const checks = { postgres, temporal, migrations };
    const down = Object.entries(checks).filter(([, c]) => !c.ok).map(([name]) => name);
    if (down.length === 0) {
      res.json({ status: 'ready', checks });
    } else {
      res.status(503).json({
        error: { code: 'unavailable', message: `Not ready: ${down.join(', ')} down`, details: checks },
      });
    }
  });
  return router;
}
