// CommonJS package: Node's ESM loader offers only its default export.
import proto from '@temporalio/proto';
import { isGrpcServiceError } from '@temporalio/client';
import type { Logger } from '../logger.js';
import type { TemporalHandle } from './client.js';
import { withDeadline } from './client.js';
import { MNEMO_SEARCH_ATTRIBUTES } from './searchAttributeKeys.js';

const KEYWORD = proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
/** gRPC status of a server without the operator API (Temporal's time-skipping test server). */
const UNIMPLEMENTED = 12;

/**
 * Registers Mnemo's custom search attributes on the Temporal namespace unless
 * they exist (listed first: adding is not idempotent on every server). Works
 * on the embedded dev server and on a cluster whose operator API the worker
 * may call; where it may not, an operator creates them once
 * (`temporal operator search-attribute create --name MnemoNamespace --type Keyword`, …)
 * and this finds them listed. Returns the names it added.
 */
export async function ensureSearchAttributes(temporalHandle: TemporalHandle, namespace: string): Promise<string[]> {
  const operator = temporalHandle.connection.operatorService;
  const listed = await withDeadline(temporalHandle, 10_000, () => operator.listSearchAttributes({ namespace }));
  const known = new Set([...Object.keys(listed.customAttributes ?? {}), ...Object.keys(listed.systemAttributes ?? {})]);
  const missing = MNEMO_SEARCH_ATTRIBUTES.map((k) => k.name).filter((name) => !known.has(name));
  if (!missing.length) return [];
  await withDeadline(temporalHandle, 10_000, () =>
    operator.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((name) => [name, KEYWORD])) }),
  );
  return missing;
}

/** gRPC statuses of a server that is not answering (down, starting, restarting), not of one that refused. */
const UNREACHABLE = new Set([4 /* DEADLINE_EXCEEDED */, 14 /* UNAVAILABLE */]);

/** How long a starting worker waits for a Temporal that does not answer before it gives up. */
const TEMPORAL_START_WAIT_MS = 120_000;

/** `ensureSearchAttributes`, waiting (backing off up to 5 s) while Temporal does not answer, at most TEMPORAL_START_WAIT_MS. */
async function ensureWhenReachable(deps: { temporal: TemporalHandle; logger: Logger }, namespace: string): Promise<string[]> {
  const giveUpAt = Date.now() + TEMPORAL_START_WAIT_MS;
  for (let pause = 500, told = false; ; pause = Math.min(pause * 2, 5_000)) {
    try {
      return await ensureSearchAttributes(deps.temporal, namespace);
    } catch (err) {
      if (!(isGrpcServiceError(err) && UNREACHABLE.has(err.code)) || Date.now() + pause > giveUpAt) throw err;
      if (!told) deps.logger.warn({ err, namespace, waitMs: TEMPORAL_START_WAIT_MS }, 'Temporal does not answer yet: the worker waits for it');
      told = true;
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}

/**
 * `ensureSearchAttributes` at worker start. A Temporal that does not answer
 * (restarting, or started after the worker) is waited for, up to 2 minutes: a
 * worker restarted during a Temporal outage comes up with it instead of
 * exiting. Fatal when it fails otherwise (but on a server without the
 * operator API, which has no registry): `ingestEpisode` sets these
 * attributes, and on a namespace without them every extraction's workflow
 * task would fail and retry forever; one clear message at start is the
 * better failure.
 */
export async function ensureSearchAttributesAtStart(deps: { temporal: TemporalHandle; logger: Logger }, namespace: string): Promise<void> {
  let added: string[];
  try {
    added = await ensureWhenReachable(deps, namespace);
  } catch (err) {
    // A server without the operator API keeps no search-attribute registry to extend (it takes any
    // attribute a workflow sets): nothing to register there.
    if (isGrpcServiceError(err) && err.code === UNIMPLEMENTED) {
      deps.logger.debug({ namespace }, 'Temporal server has no operator API; search attributes not registered');
      return;
    }
    const names = MNEMO_SEARCH_ATTRIBUTES.map((k) => k.name).join(', ');
    throw new Error(
      `Temporal search attributes ${names} are not registered on namespace "${namespace}" and the worker could not register them ` +
        `(${(err as Error).message}). Create each once: temporal operator search-attribute create --namespace ${namespace} --name <name> --type Keyword`,
      { cause: err },
    );
  }
  if (added.length) deps.logger.info({ added, namespace }, 'registered Temporal search attributes');
}

/** Settled answers per connection and namespace: the registry does not lose attributes, and a server without it never gains one. */
const usable = new WeakMap<TemporalHandle['connection'], Map<string, boolean>>();

/**
 * Whether workflows on `namespace` may set Mnemo's search attributes: all are
 * registered. False on a server without the operator API (the time-skipping
 * test server, which rejects unregistered attributes and cannot register any)
 * and, without caching, when the answer could not be had (visibility only
 * degrades; extraction goes on).
 */
export async function searchAttributesUsable(temporalHandle: TemporalHandle, namespace: string): Promise<boolean> {
  const known = usable.get(temporalHandle.connection)?.get(namespace);
  if (known !== undefined) return known;
  let answer: boolean;
  try {
    const listed = await withDeadline(temporalHandle, 10_000, () => temporalHandle.connection.operatorService.listSearchAttributes({ namespace }));
    const names = new Set(Object.keys(listed.customAttributes ?? {}));
    answer = MNEMO_SEARCH_ATTRIBUTES.every((k) => names.has(k.name));
    if (!answer) return false;
  } catch (err) {
    if (!(isGrpcServiceError(err) && err.code === UNIMPLEMENTED)) return false;
    answer = false;
  }
  const perNamespace = usable.get(temporalHandle.connection) ?? new Map<string, boolean>();
  perNamespace.set(namespace, answer);
  usable.set(temporalHandle.connection, perNamespace);
  return answer;
}
