// Plain ESM: Jest loads its test sequencer outside its module mapper.
import path from 'node:path';
import Sequencer from '@jest/test-sequencer';

/**
 * Seconds a file took in CI's embedded pass (session 54), for the files that take 15 s or more. Two workers finish
 * a pass when the later one does, so the longest files should start first. Jest orders by the durations it cached
 * on earlier runs, and without a cache (a fresh clone: CI's embedded pass, a newcomer's `npm test`) by file size,
 * which started the 110 s chaos file among the last. A file missing here or grown slower only runs out of order.
 */
const EXPECTED_SECONDS = {
  'test/chaos.test.ts': 110,
  'test/embedded-start.test.ts': 74,
  'test/governance-erasure.test.ts': 50,
  'test/ingest-durability.test.ts': 44,
  'test/dream-crash.test.ts': 39,
  'test/overload.test.ts': 34,
  'test/metrics.test.ts': 33,
  'test/entrypoints.test.ts': 31,
  'test/worker-waits-for-temporal.test.ts': 29,
  'test/fuzz-routes.test.ts': 28,
  'test/history-order-property.test.ts': 27,
  'test/sources.test.ts': 26,
  'test/memory-races.test.ts': 25,
  'test/ingest-scenarios.test.ts': 25,
  'test/api-platform.test.ts': 21,
  'test/embedded-concurrency.test.ts': 21,
  'test/ingest-faults.test.ts': 20,
  'test/tasks-api.test.ts': 20,
  'test/kg-browser.test.ts': 19,
  'test/session-temporal-restart.test.ts': 19,
  'test/migrations.test.ts': 18,
  'test/session-api.test.ts': 15,
  'test/search-attributes.test.ts': 15,
};

/** Failed files first (as Jest does), then the longest first: the cached duration, else the expected one, else by size. */
export default class LongestFirst extends Sequencer {
  sort(tests) {
    const expectedMs = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached;
      const seconds = EXPECTED_SECONDS[path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/')];
      return seconds == null ? undefined : seconds * 1000;
    };
    const size = (test) => test.context.hasteFS.getSize(test.path) ?? 0;
    const keyed = tests.map((test) => ({ test, failed: this.hasFailed(test), ms: expectedMs(test), size: size(test) }));
    keyed.sort((a, b) => {
      if (a.failed !== b.failed) return a.failed ? -1 : 1;
      if ((a.ms != null) !== (b.ms != null)) return a.ms != null ? -1 : 1;
      if (a.ms != null && b.ms != null && a.ms !== b.ms) return b.ms - a.ms;
      return b.size - a.size;
    });
    return keyed.map(({ test }) => test);
  }
}
