// Workflow registry: the exported names are the workflow types stored in history.
export { ingestEpisode } from './ingestEpisode.js';
export { reconcile } from './reconcile.js';
export { refreshSearchStats } from './refreshSearchStats.js';
export { review } from './review.js';
export { session } from './session.js';
export { persistentTask } from './persistentTask.js';
export { dream } from './dream.js';
export { eraseUser } from './eraseUser.js';
