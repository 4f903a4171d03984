import { createCommitActivities } from './commitStage.js';
import type { ActivityDeps } from './deps.js';
import { createLifecycleActivities } from './episodeLifecycle.js';
import { createExtractionActivities } from './extractionStages.js';
import { createFactActivities } from './factStages.js';
import { createMaintenanceActivities } from './maintenance.js';
import { createReconcileActivities } from './reconcile.js';
import { createDreamActivities } from './dream.js';
import { createReviewActivities } from './reviews.js';
import { createSessionActivities } from './sessions.js';
import { createTaskActivities } from './tasks.js';
import { createErasureActivities } from './erasure.js';
import { StageRunLog } from './stageRecorder.js';

export type { ActivityDeps };

/**
 * Every activity, built once per worker from its dependencies. Activity names
 * (the keys) are stored in workflow histories: do not rename them.
 */
export function createActivities(deps: ActivityDeps) {
  const stageRuns = new StageRunLog(deps.telemetryPool);
  return {
    ...createLifecycleActivities(deps),
    ...createExtractionActivities(deps, stageRuns),
    ...createFactActivities(deps, stageRuns),
    ...createCommitActivities(deps, stageRuns),
    ...createReconcileActivities(deps),
    ...createMaintenanceActivities(deps),
    ...createSessionActivities(deps),
    ...createTaskActivities(deps),
    ...createDreamActivities(deps),
    ...createReviewActivities(deps),
    ...createErasureActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
