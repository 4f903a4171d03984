/**
 * The request schemas every route parses with, gathered in one place for the
 * typed client (`import type`) and the OpenAPI catalogue. They stay defined
 * beside their routes; this module only re-exports them.
 */
export { batchSchema as memoryBatchSchema, listQuerySchema as memoryListQuerySchema, memoryBodySchema, memoryExpandSchema } from '../routes/memories.js';
export { factBodySchema, factsQuerySchema } from '../routes/facts.js';
export { factCorrectionSchema } from '../routes/corrections.js';
export { searchBodySchema } from '../routes/search.js';
export { contextBodySchema, contextQuerySchema } from '../routes/context.js';
export { byIdQuerySchema as entityQuerySchema, listQuerySchema as entityListQuerySchema, neighborhoodQuerySchema } from '../routes/entities.js';
export { eraseQuerySchema, exportQuerySchema, profileQuerySchema } from '../routes/users.js';
export { sessionQuerySchema, turnBodySchema } from '../routes/sessions.js';
export { budgetSchema as taskBudgetSchema, createSchema as taskCreateSchema, listQuerySchema as taskListQuerySchema, progressSchema as taskProgressSchema } from '../routes/tasks.js';
export { listQuerySchema as reviewListQuerySchema, plainBodySchema as reviewNoteSchema, resolveBodySchema as reviewResolveSchema } from '../routes/reviews.js';
