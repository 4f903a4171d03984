import { Router } from 'express';
import type { Deps } from '../../core/deps.js';

/** Placeholder: filled in by the reviews work. */
export function reviewsRoutes(_deps: Deps): Router {
  return Router();
}
