import { Router } from 'express';
import type { Deps } from '../../core/deps.js';

/** Placeholder: filled in by the sessions work. */
export function sessionsRoutes(_deps: Deps): Router {
  return Router();
}
