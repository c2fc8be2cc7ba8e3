/** @type {import('jest').Config} */
const swc = ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }];

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
  maxWorkers: 2,
  // The Temporal native runtime keeps handles open (sdk-typescript #928).
  forceExit: true,
  // Jest 30 reads this from the root only; integration tests on a real Temporal server need the room.
  testTimeout: 120000,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
    },
    {
      displayName: 'sandbox',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      testMatch: ['<rootDir>/test/sandbox/**/*.test.ts'],
    },
    {
      displayName: 'client',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      testMatch: ['<rootDir>/test/client/**/*.test.ts'],
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
    },
    {
      // The full chaos run (2,000 PLM rows + 500 orders, worker SIGKILLs, API faults): `npm run test:chaos` only;
      // `npm test` selects the four projects above (its short version is test/integration/chaos-short.test.ts).
      displayName: 'chaos',
      testEnvironment: 'node',
      transform: { '^.+\\.ts$': swc },
      testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
    },
  ],
};
