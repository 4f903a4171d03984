import type { ActivityDeps } from './deps.js';

/** Placeholder: filled in by the reviews work. */
export function createReviewActivities(_deps: ActivityDeps) {
  return {};
}
