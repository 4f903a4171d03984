/**
 * Request and response types of the client, all derived from the zod schemas
 * the server validates with and documents (no hand-copied shapes): requests are
 * a schema's input (defaults optional), responses its output.
 */
import type { z } from 'zod';
import type * as req from '../api/schemas/requests.js';
import type * as memories from '../api/schemas/responses/memories.js';
import type * as facts from '../api/schemas/responses/facts.js';
import type * as retrieval from '../api/schemas/responses/retrieval.js';
import type * as entities from '../api/schemas/responses/entities.js';
import type * as users from '../api/schemas/responses/users.js';
import type * as sessions from '../api/schemas/responses/sessions.js';
import type * as tasks from '../api/schemas/responses/tasks.js';
import type * as reviews from '../api/schemas/responses/reviews.js';
import type { ErrorBody } from '../api/schemas/responses/common.js';

/** Query-string booleans accept a plain boolean too (sent as "true"/"false"). */
type QueryOf<S extends z.ZodType> = {
  [K in keyof z.input<S>]: Exclude<z.input<S>[K], undefined> extends 'true' | 'false' | '1' | '0' ? z.input<S>[K] | boolean : z.input<S>[K];
};

export type { ErrorBody };

export type MemoryInput = z.input<typeof req.memoryBodySchema>;
export type MemoryListQuery = QueryOf<typeof req.memoryListQuerySchema>;
export type AcceptedMemory = z.infer<typeof memories.acceptedMemorySchema>;
export type Memory = z.infer<typeof memories.memorySchema>;
export type MemoryDetail = z.infer<typeof memories.memoryDetailSchema>;
export type MemoryExpanded = z.infer<typeof memories.memoryExpandedSchema>;
export type MemoryPage = z.infer<typeof memories.memoryPageSchema>;
export type MemoryStages = z.infer<typeof memories.memoryStagesSchema>;
export type MemoryRetry = z.infer<typeof memories.memoryRetrySchema>;
export type MemoryForget = z.infer<typeof memories.memoryForgetSchema>;
export type MemoryRestore = z.infer<typeof memories.memoryRestoreSchema>;

export type FactListQuery = QueryOf<typeof req.factsQuerySchema>;
export type FactInput = z.input<typeof req.factBodySchema>;
export type FactCorrection = z.input<typeof req.factCorrectionSchema>;
export type Fact = z.infer<typeof facts.factSchema>;
export type ListedFact = z.infer<typeof facts.listedFactSchema>;
export type FactList = z.infer<typeof facts.factListSchema>;
export type AcceptedFact = z.infer<typeof facts.acceptedFactSchema>;
export type Forgotten = z.infer<typeof facts.forgottenSchema>;
export type Restored = z.infer<typeof facts.restoredSchema>;

export type SearchInput = z.input<typeof req.searchBodySchema>;
export type SearchResponse = z.infer<typeof retrieval.searchResponseSchema>;
export type ContextInput = z.input<typeof req.contextBodySchema>;
export type ContextBlock = z.infer<typeof retrieval.contextBlockSchema>;

export type EntityListQuery = QueryOf<typeof req.entityListQuerySchema>;
export type EntityQuery = QueryOf<typeof req.entityQuerySchema>;
export type NeighborhoodQuery = QueryOf<typeof req.neighborhoodQuerySchema>;
export type EntityList = z.infer<typeof entities.entityListSchema>;
export type EntityMemory = z.infer<typeof entities.entityMemorySchema>;
export type Neighborhood = z.infer<typeof entities.neighborhoodSchema>;

export type ProfileQuery = QueryOf<typeof req.profileQuerySchema>;
export type ExportQuery = QueryOf<typeof req.exportQuerySchema>;
export type EraseQuery = QueryOf<typeof req.eraseQuerySchema>;
export type UserProfile = z.infer<typeof users.userProfileSchema>;
export type UserExport = z.infer<typeof users.userExportSchema>;
export type ErasureAck = z.infer<typeof users.erasureAckSchema>;
export type Erasure = z.infer<typeof users.erasureSchema>;

export type TurnInput = z.input<typeof req.turnBodySchema>;
export type SessionQuery = QueryOf<typeof req.sessionQuerySchema>;
export type TurnAck = z.infer<typeof sessions.turnAckSchema>;
export type Session = z.infer<typeof sessions.sessionViewSchema>;

export type TaskInput = z.input<typeof req.taskCreateSchema>;
export type TaskListQuery = QueryOf<typeof req.taskListQuerySchema>;
export type TaskProgressInput = z.input<typeof req.taskProgressSchema>;
export type TaskBudgetInput = z.input<typeof req.taskBudgetSchema>;
export type TaskCreated = z.infer<typeof tasks.taskCreatedSchema>;
export type TaskList = z.infer<typeof tasks.taskListSchema>;
export type Task = z.infer<typeof tasks.taskDetailSchema>;
export type TaskSignalAck = z.infer<typeof tasks.taskSignalAckSchema>;

export type ReviewListQuery = QueryOf<typeof req.reviewListQuerySchema>;
export type ReviewNote = NonNullable<z.input<typeof req.reviewNoteSchema>>;
export type ReviewResolveInput = z.input<typeof req.reviewResolveSchema>;
export type Review = z.infer<typeof reviews.reviewSchema>;
export type ReviewPage = z.infer<typeof reviews.reviewPageSchema>;
export type ReviewDecisionAck = z.infer<typeof reviews.reviewDecisionAckSchema>;
