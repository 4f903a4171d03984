import { analyzeGrownTables } from '../core/db/analyzeGrown.js';
import { refreshTermStats } from '../core/retrieval/termStats.js';
import type { ActivityDeps } from './deps.js';

export function createMaintenanceActivities(deps: Pick<ActivityDeps, 'pool'>) {
  return {
    /**
     * Refreshes the term statistics the keyword signal weighs query terms with, after ANALYZE moved them: autovacuum's,
     * or first its own for tables that grew without one (PGlite has no autovacuum).
     */
    async refreshSearchStats(): Promise<{ lexemes: number; analyzed: string[] }> {
      const analyzed = await analyzeGrownTables(deps.pool);
      return { ...(await refreshTermStats(deps.pool)), analyzed };
    },
  };
}
