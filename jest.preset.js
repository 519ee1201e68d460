// Shared Jest settings for every workspace: @swc/jest with decorator metadata (Nest DI needs it),
// Nest's ESM packages transformed, and @arbiter/* resolved to library sources so tests never need a build.
const path = require('node:path');

const libs = [
  'platform',
  'contracts',
  'feel',
  'rule-engine',
  'auth',
  'dmn',
  'audit-chain',
  'event-windows',
  'client',
  'licensing',
  'scenarios',
];
const apps = ['control-plane', 'decisions', 'identity'];
const tools = ['tck', 'deployables', 'rule-manifest', 'testing', 'openapi'];

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|file-type|load-esm|strtok3|token-types|@tokenizer|uint8array-extras|@borewit|content-disposition|cookie|jose)/)',
  ],
  moduleNameMapper: Object.fromEntries([
    ...libs.map((lib) => [`^@arbiter/${lib}$`, path.join(__dirname, 'libs', lib, 'src', 'index.ts')]),
    // the tables the scenario tests and benches share (a subpath of its own, not the library's index)
    ['^@arbiter/scenarios/fixtures$', path.join(__dirname, 'libs', 'scenarios', 'src', 'fixtures.ts')],
    ...apps.map((app) => [`^@arbiter/${app}$`, path.join(__dirname, 'apps', app, 'src', 'index.ts')]),
    ...tools.map((tool) => [`^@arbiter/${tool}$`, path.join(__dirname, 'tools', tool, 'src', 'index.ts')]),
  ]),
  moduleFileExtensions: ['ts', 'js', 'json'],
  testRegex: '.*\\.(spec|e2e-spec)\\.ts$',
  setupFiles: [path.join(__dirname, 'jest.setup.js')],
  // every response from one of the services is checked against its OpenAPI document (tools/testing)
  setupFilesAfterEnv: [path.join(__dirname, 'tools', 'testing', 'src', 'contract', 'jest-setup.ts')],
  testTimeout: 30000,
};
