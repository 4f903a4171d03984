import { Router } from 'express';
import type { Deps } from '../../core/deps.js';
import { MemoryWriter } from '../../core/memories/write.js';
import { contextRoutes } from './context.js';
import { correctionRoutes } from './corrections.js';
import { entityRoutes } from './entities.js';
import { searchRoutes } from './search.js';
import { userRoutes } from './users.js';
import { factRoutes } from './facts.js';
import { memoryRoutes } from './memories.js';
import { dreamRoutes } from './dream.js';
import { reviewsRoutes } from './reviews.js';
import { sessionsRoutes } from './sessions.js';
import { tasksRoutes } from './tasks.js';
import { namespaceRoutes } from './namespaces.js';
import { auditRoutes } from './audit.js';
import { erasuresRoutes } from './erasures.js';
import { threadsRoutes } from './threads.js';
import { ontologyRoutes } from './ontology.js';
import { memoryVersionRoutes } from './memoryVersions.js';
import { keyRoutes } from './keys.js';

/** Every `/v1` route; each resource has its own module. */
export function v1Routes(deps: Deps): Router {
  const router = Router();
  const writer = new MemoryWriter(deps);
  router.use(memoryRoutes(deps, writer));
  router.use(factRoutes(deps, writer));
  router.use(correctionRoutes(deps));
  router.use(searchRoutes(deps));
  router.use(contextRoutes(deps));
  router.use(entityRoutes(deps));
  router.use(userRoutes(deps));
  router.use(sessionsRoutes(deps));
  router.use(tasksRoutes(deps));
  router.use(dreamRoutes(deps));
  router.use(reviewsRoutes(deps));
  router.use(namespaceRoutes(deps));
  router.use(auditRoutes(deps));
  router.use(erasuresRoutes(deps));
  router.use(threadsRoutes(deps));
  router.use(ontologyRoutes());
  router.use(memoryVersionRoutes(deps));
  router.use(keyRoutes(deps));
  return router;
}
