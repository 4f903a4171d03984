// Workflow registry: the exported names are the workflow types stored in history.
export { ingestEpisode } from './ingestEpisode.js';
export { reconcile } from './reconcile.js';
export { refreshSearchStats } from './refreshSearchStats.js';
