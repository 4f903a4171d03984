import { refreshTermStats } from '../core/retrieval/termStats.js';
import type { ActivityDeps } from './deps.js';

export function createMaintenanceActivities(deps: ActivityDeps) {
  return {
    /** Refreshes the term statistics the keyword signal weighs query terms with (after autovacuum's ANALYZE moved them). */
    async refreshSearchStats(): Promise<{ lexemes: number }> {
      return refreshTermStats(deps.pool);
    },
  };
}
