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

/**
 * otplib's own plugins (two-step sign-in, decision 0036) require @scure/base and @noble/hashes
 * v2, which are ES modules only: Jest cannot require them on Node 20 (Node itself can). SWC turns
 * just those nested copies into CommonJS; every other package is left as it is.
 */
const swcEsm = ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }];
const OTPLIB_ESM = '/node_modules/@otplib/[^/]+/node_modules/';

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e.ts'],
  transform: { '^.+\\.ts$': swc, [`${OTPLIB_ESM}.+\\.js$`]: swcEsm },
  transformIgnorePatterns: [`^(?!.*${OTPLIB_ESM}).*/node_modules/`],
  // a relative import written for Node's ESM resolution (`./x.js`) is the TypeScript file beside it
  moduleNameMapper: { '^@lib/(.*)$': '<rootDir>/libs/$1/src', '^(\\.{1,2}/.*)\\.js$': '$1' },
  testTimeout: 60000,
  // a worker asked to end is killed after this long (Jest's default 500 ms). Probes found no handle
  // left in a worker at the end (only its stdio and IPC channel); the one worker a run force-killed
  // had not even run a 400 ms timer: busy finishing (teardown, a last GC), not leaking
  workerGracefulExitTimeout: 5000,
  verbose: true,
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  setupFiles: ['<rootDir>/test/support/env-setup.ts'],
  // every API answer the tests receive over fetch is checked against the served OpenAPI document
  setupFilesAfterEnv: ['<rootDir>/test/support/contract-setup.ts'],
};
