/**
 * Tests run against real PostgreSQL (+pgvector) and a real Temporal dev server:
 * by default the embedded ones `npm start` uses (PGlite per test database, a
 * Temporal dev server found or installed like `npm start` does); with
 * TEST_DATABASE_ADMIN_URL, that PostgreSQL server. See test/support.
 */
export default {
  testEnvironment: '<rootDir>/test/support/nodeEnvironment.mjs',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      {
        jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
        module: { type: 'es6' },
      },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/support/globalSetup.mjs',
  globalTeardown: '<rootDir>/test/support/globalTeardown.mjs',
  reporters: ['default', '<rootDir>/test/support/skippedReporter.mjs'],
  testSequencer: '<rootDir>/test/support/sequencer.mjs',
  testTimeout: 60_000,
  // One worker process (npm test passes --maxWorkers=1) that Jest replaces between test files once its heap passes
  // this: a single process accumulates every file's module graph and ran out of heap after ~50 of 90+ files.
  workerIdleMemoryLimit: '1536MB',
  // In CI a run that leaves a handle open (a failed test's worker) ends anyway instead of hanging the job.
  forceExit: process.env.CI === 'true',
};
