import path from 'node:path';

const SERVER_ONLY_MARK = '[server only:';
/** At most this share of a whole run may be server-only (issue 22); a larger share fails the run. */
const MAX_SERVER_ONLY_SHARE = 0.05;
/** Below this many test files a run is a subset (one file, a folder): the share is not checked. */
const WHOLE_SUITE_FILES = 20;

/**
 * Lists every skipped test with its title at the end of the run (the default
 * reporter only counts them), so a test skipped on the embedded default shows
 * its `[server only: reason]`.
 */
export default class SkippedReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.error = undefined;
  }

  onRunComplete(_contexts, results) {
    const skipped = [];
    for (const file of results.testResults) {
      for (const test of file.testResults) {
        if (test.status === 'pending' || test.status === 'skipped' || test.status === 'todo') {
          skipped.push(`${path.relative(this.rootDir, file.testFilePath)} › ${test.fullName}`);
        }
      }
    }
    if (!skipped.length) return;
    const serverOnly = skipped.filter((s) => s.includes(SERVER_ONLY_MARK)).length;
    const total = results.numTotalTests;
    const share = total ? serverOnly / total : 0;
    console.log(
      `\nSkipped tests (${skipped.length} of ${total}; server-only ${serverOnly}, ${(share * 100).toFixed(1)} %):\n` +
        skipped.map((s) => `  ○ ${s}`).join('\n'),
    );
    if (results.testResults.length >= WHOLE_SUITE_FILES && share > MAX_SERVER_ONLY_SHARE) {
      this.error = new Error(`${serverOnly} of ${total} tests are server-only: more than ${MAX_SERVER_ONLY_SHARE * 100} % of the suite`);
      console.log(`\n${this.error.message}`);
    }
  }

  getLastError() {
    return this.error;
  }
}
