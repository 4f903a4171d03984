import type { ActivityDeps } from './deps.js';

/** Placeholder: filled in by the dream work. */
export function createDreamActivities(_deps: ActivityDeps) {
  return {};
}
