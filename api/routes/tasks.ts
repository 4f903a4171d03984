import { Router } from 'express';
import type { Deps } from '../../core/deps.js';

/** Placeholder: filled in by the tasks work. */
export function tasksRoutes(_deps: Deps): Router {
  return Router();
}
