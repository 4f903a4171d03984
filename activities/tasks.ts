import type { ActivityDeps } from './deps.js';

/** Placeholder: filled in by the tasks work. */
export function createTaskActivities(_deps: ActivityDeps) {
  return {};
}
