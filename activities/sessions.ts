import type { ActivityDeps } from './deps.js';

/** Placeholder: filled in by the sessions work. */
export function createSessionActivities(_deps: ActivityDeps) {
  return {};
}
