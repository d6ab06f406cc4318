/** Jest runs TypeScript through SWC (decorators and their metadata included). */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: { '^@lib/(.*)$': '<rootDir>/libs/$1/src' },
  testTimeout: 60000,
  verbose: true,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  setupFiles: ['<rootDir>/test/support/env-setup.ts'],
  // every API answer the tests receive over fetch is checked against the served OpenAPI document
  setupFilesAfterEnv: ['<rootDir>/test/support/contract-setup.ts'],
};
