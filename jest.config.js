/** Tests run against real PostgreSQL (+pgvector) and a real Temporal dev server; see test/support. */
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
  testTimeout: 60_000,
};
