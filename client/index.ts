/**
 * Mnemo's typed client: one method per route, grouped by resource. Types come
 * from the server's own zod schemas (client/types.ts); errors are
 * MnemoApiError; 503 and 429 are retried honouring Retry-After; memory writes
 * carry an Idempotency-Key so a retried write is stored once.
 */
import { randomUUID } from 'node:crypto';
import { Transport, type TransportOptions } from './transport.js';
import type * as T from './types.js';

export { MnemoApiError } from './errors.js';
export type { TransportOptions as MnemoClientOptions } from './transport.js';
export type * from './types.js';

const seg = (value: string) => encodeURIComponent(value);

/** Options of a write: the idempotency key to send (a fresh UUID per call when not given). */
export interface WriteOptions {
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export class MnemoClient {
  private readonly http: Transport;

  constructor(options: TransportOptions) {
    this.http = new Transport(options);
  }

  readonly memories = {
    /** Stores one memory; the same Idempotency-Key is sent on every retry of this call. */
    write: (memory: T.MemoryInput, options: WriteOptions = {}) =>
      this.http.request<T.AcceptedMemory>('POST', '/v1/memories', { body: memory, idempotencyKey: options.idempotencyKey ?? randomUUID(), signal: options.signal }),
    batch: (memories: T.MemoryInput[], options: WriteOptions = {}) =>
      this.http.request<{ memories: T.AcceptedMemory[] }>('POST', '/v1/memories/batch', {
        body: { memories },
        idempotencyKey: options.idempotencyKey ?? randomUUID(),
        signal: options.signal,
      }),
    get: (id: string) => this.http.request<T.MemoryDetail>('GET', `/v1/memories/${seg(id)}`),
    /** The memory with the facts and entities its extraction produced, as full objects. */
    getExpanded: (id: string) => this.http.request<T.MemoryExpanded>('GET', `/v1/memories/${seg(id)}`, { query: { expand: 'facts' } }),
    list: (query: T.MemoryListQuery = {}) => this.http.request<T.MemoryPage>('GET', '/v1/memories', { query }),
    stages: (id: string) => this.http.request<T.MemoryStages>('GET', `/v1/memories/${seg(id)}/stages`),
    forget: (id: string) => this.http.request<T.MemoryForget>('POST', `/v1/memories/${seg(id)}/forget`),
    delete: (id: string) => this.http.request<T.MemoryForget>('DELETE', `/v1/memories/${seg(id)}`),
    restore: (id: string) => this.http.request<T.MemoryRestore>('POST', `/v1/memories/${seg(id)}/restore`),
    retry: (id: string) => this.http.request<T.MemoryRetry>('POST', `/v1/memories/${seg(id)}/retry`),
  };

  search(input: T.SearchInput): Promise<T.SearchResponse> {
    return this.http.request('POST', '/v1/search', { body: input });
  }

  context(input: T.ContextInput = {}): Promise<T.ContextBlock> {
    return this.http.request('POST', '/v1/context', { body: input });
  }

  readonly facts = {
    list: (query: T.FactListQuery = {}) => this.http.request<T.FactList>('GET', '/v1/facts', { query }),
    create: (input: T.FactInput) => this.http.request<T.AcceptedFact>('POST', '/v1/facts', { body: input }),
    correct: (id: string, correction: T.FactCorrection) => this.http.request<T.ListedFact>('PATCH', `/v1/facts/${seg(id)}`, { body: correction }),
    forget: (id: string) => this.http.request<T.Forgotten>('POST', `/v1/facts/${seg(id)}/forget`),
    restore: (id: string) => this.http.request<T.Restored>('POST', `/v1/facts/${seg(id)}/restore`),
  };

  readonly entities = {
    list: (query: T.EntityListQuery = {}) => this.http.request<T.EntityList>('GET', '/v1/entities', { query }),
    get: (id: string, query: T.EntityQuery = {}) => this.http.request<T.EntityMemory>('GET', `/v1/entities/${seg(id)}`, { query }),
    neighborhood: (id: string, query: T.NeighborhoodQuery = {}) => this.http.request<T.Neighborhood>('GET', `/v1/entities/${seg(id)}/neighborhood`, { query }),
    forget: (id: string) => this.http.request<T.Forgotten>('POST', `/v1/entities/${seg(id)}/forget`),
    restore: (id: string) => this.http.request<T.Restored>('POST', `/v1/entities/${seg(id)}/restore`),
  };

  readonly sessions = {
    addTurn: (taskId: string, turn: T.TurnInput) => this.http.request<T.TurnAck>('POST', `/v1/sessions/${seg(taskId)}/turns`, { body: turn }),
    get: (taskId: string, query: T.SessionQuery = {}) => this.http.request<T.Session>('GET', `/v1/sessions/${seg(taskId)}`, { query }),
  };

  readonly tasks = {
    create: (task: T.TaskInput) => this.http.request<T.TaskCreated>('POST', '/v1/tasks', { body: task }),
    list: (query: T.TaskListQuery = {}) => this.http.request<T.TaskList>('GET', '/v1/tasks', { query }),
    get: (id: string) => this.http.request<T.Task>('GET', `/v1/tasks/${seg(id)}`),
    progress: (id: string, progress: T.TaskProgressInput) => this.http.request<T.TaskSignalAck>('POST', `/v1/tasks/${seg(id)}/progress`, { body: progress }),
    setBudget: (id: string, budget: T.TaskBudgetInput) => this.http.request<T.TaskSignalAck>('POST', `/v1/tasks/${seg(id)}/budget`, { body: budget }),
    pause: (id: string) => this.http.request<T.TaskSignalAck>('POST', `/v1/tasks/${seg(id)}/pause`),
    resume: (id: string) => this.http.request<T.TaskSignalAck>('POST', `/v1/tasks/${seg(id)}/resume`),
    cancel: (id: string) => this.http.request<T.TaskSignalAck>('POST', `/v1/tasks/${seg(id)}/cancel`),
  };

  readonly reviews = {
    list: (query: T.ReviewListQuery = {}) => this.http.request<T.ReviewPage>('GET', '/v1/reviews', { query }),
    get: (id: string) => this.http.request<T.Review>('GET', `/v1/reviews/${seg(id)}`),
    approve: (id: string, body?: T.ReviewNote) => this.http.request<T.ReviewDecisionAck>('POST', `/v1/reviews/${seg(id)}/approve`, { body }),
    reject: (id: string, body?: T.ReviewNote) => this.http.request<T.ReviewDecisionAck>('POST', `/v1/reviews/${seg(id)}/reject`, { body }),
    resolve: (id: string, body: T.ReviewResolveInput) => this.http.request<T.ReviewDecisionAck>('POST', `/v1/reviews/${seg(id)}/resolve`, { body }),
  };

  readonly users = {
    profile: (userId: string, query: T.ProfileQuery = {}) => this.http.request<T.UserProfile>('GET', `/v1/users/${seg(userId)}/profile`, { query }),
    export: (userId: string, query: T.ExportQuery = {}) => this.http.request<T.UserExport>('GET', `/v1/users/${seg(userId)}/export`, { query }),
    /** Starts the erasure of everything about the user (operator keys); follow it with `erasure(ack.id)`. */
    erase: (userId: string, query: T.EraseQuery = {}) => this.http.request<T.ErasureAck>('DELETE', `/v1/users/${seg(userId)}`, { query }),
    erasure: (id: string) => this.http.request<T.Erasure>('GET', `/v1/erasures/${seg(id)}`),
  };
}
