import { Router } from 'express';
import type { Deps } from '../../core/deps.js';

/** Placeholder: filled in by the dream work. */
export function dreamRoutes(_deps: Deps): Router {
  return Router();
}
