/**
 * Evaluated once per worker thread by the workflow bundle's preload (see
 * SHARED_WORKFLOW_MODULES in workers/runtime.ts) rather than once per workflow
 * run. zod is re-exported so the bundler keeps it: it marks itself free of
 * side effects, and a bare preload of it was dropped from the bundle.
 */
import * as z from 'zod/mini';

export const sharedZod = z;
