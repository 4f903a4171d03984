import { readConcurrency } from '../core/config/config.js';
import type { Deps } from '../core/deps.js';
import type { Logger } from '../core/logger.js';
import { buildContext } from '../core/retrieval/context.js';
import { resolveRecipe } from '../core/retrieval/recipes.js';
import type { ReadScope } from '../core/retrieval/scope.js';
import { runSearch } from '../core/retrieval/search.js';
import { withReadClient } from '../core/retrieval/sql.js';
import type { ResultKind } from '../core/retrieval/types.js';
import type { Queryable } from '../core/db/pool.js';

/** Some stored episode's scope and words, so the warm-up takes the paths a real question takes (an empty scope stops early). */
async function sampleQuestion(db: Queryable): Promise<{ namespace: string; userId?: string; query: string }> {
  // Any live episode will do: LIMIT 1 without an order stops at the first row the scan meets.
  const { rows } = await db.query<{ namespace: string; user_id: string | null; words: string }>(
    `SELECT namespace, user_id, left(content, 200) AS words FROM episode WHERE forgotten_at IS NULL AND user_id IS NOT NULL LIMIT 1`,
  );
  const row = rows[0];
  if (!row) return { namespace: 'default', userId: 'warm-up', query: 'where does the user work' };
  return { namespace: row.namespace, userId: row.user_id ?? undefined, query: row.words.split(/\s+/).slice(0, 8).join(' ') };
}

/**
 * Opens READ_WARM_CONNECTIONS read connections and runs each question shape
 * agents send (context and search, per user and namespace-wide) once on every
 * one of them, before the API listens: as many as the reads that usually
 * arrive together (four shapes, a few agents), not the whole pool. A new
 * connection plans each read statement the first time it runs it (generic
 * plans, once per connection: core/retrieval/sql.ts) and the process's own
 * code runs cold the first time: without this, the first reads after a start,
 * arriving together, were the slowest of a whole run (`bench:first-burst`).
 * The answers are thrown away. Never throws: a failure here is logged and the
 * first reads pay instead.
 */
export async function warmUpReadConnections(deps: Pick<Deps, 'readPool' | 'embedder' | 'config' | 'now'>, logger: Logger): Promise<void> {
  // Never more than the read gate lets run at once: the pool's other connections would only open for this.
  const count = Math.min(deps.config.READ_WARM_CONNECTIONS, readConcurrency(deps.config));
  if (count === 0) return;
  const started = performance.now();
  try {
    const question = await withReadClient(deps.readPool, sampleQuestion);
    const now = deps.now();
    const perUser: ReadScope = { namespace: question.namespace, userId: question.userId, now, includeForgotten: false };
    const namespaceWide: ReadScope = { namespace: question.namespace, now, includeForgotten: false };
    // What the routes ask with their defaults (api/routes/context.ts, search.ts).
    const contextRequest = { query: question.query, maxTokens: 1000, recipe: resolveRecipe(undefined, 'context'), minConfidence: deps.config.DECAY_FLOOR };
    const searchRequest = { query: question.query, k: 10, kinds: ['episode', 'fact', 'entity'] as ResultKind[], recipe: resolveRecipe(undefined) };
    const ask = async (db: Queryable) => {
      for (const scope of [perUser, namespaceWide]) {
        await buildContext(db, deps.embedder, scope, contextRequest);
        await runSearch(db, deps.embedder, scope, searchRequest);
      }
    };
    // All at once, so each runs on a connection of its own.
    await Promise.all(Array.from({ length: count }, () => withReadClient(deps.readPool, ask)));
    logger.debug({ connections: count, ms: Math.round(performance.now() - started) }, 'read connections warmed up');
  } catch (err) {
    logger.warn({ err }, 'read connections did not warm up; the first reads will open and plan them');
  }
}
