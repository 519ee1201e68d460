import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import arbiter from './tools/eslint-rules/src/index.js';

// The house rules of ../shared/ARCHITECTURE.md, enforced: engines are pure, libs never import apps, apps never
// import each other, a feature is used by other features only through its index.ts.

/** Engine libraries: they take data and return data (no Nest, no database, no network, no files). */
const ENGINE_LIBS = ['feel', 'dmn', 'rule-engine', 'audit-chain', 'event-windows', 'scenarios', 'licensing'];
const APPS = ['control-plane', 'decisions', 'identity', 'cli', 'console'];
const NODE_IO = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'dgram',
  'child_process',
  'cluster',
  'tls',
];
const NODE_IO_ALSO = ['worker_threads', 'os', 'readline', 'dns', 'inspector', 'v8'];

const appPackages = (except) =>
  APPS.filter((app) => app !== except).map((app) => ({
    name: `@arbiter/${app}`,
    message: except
      ? 'An app never imports another app: move what both need to a lib.'
      : 'A library never imports an app.',
  }));

const TEST_HELPERS = {
  name: '@arbiter/testing',
  message: 'Test helpers are for tests (*.spec.ts, test/): product code never imports them.',
};

const enginePurity = {
  paths: [
    ...[...NODE_IO, ...NODE_IO_ALSO].flatMap((mod) =>
      [mod, `node:${mod}`].map((name) => ({
        name,
        message:
          'Engine libraries do no I/O: the caller reads and writes, the engine takes data and returns data.',
      })),
    ),
    ...['@arbiter/platform', '@arbiter/auth'].map((name) => ({
      name,
      message: 'Engine libraries do not depend on the Nest building blocks.',
    })),
    ...appPackages(undefined),
    TEST_HELPERS,
  ],
  patterns: [
    {
      group: ['@nestjs/*', 'typeorm', 'typeorm/*', 'pg', 'pg-*', '@electric-sql/*', 'nats', '@nats-io/*'],
      message: 'Engine libraries import no Nest, database or messaging module.',
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      '.data/**',
      'bench/node_modules/**',
      // written by @hey-api/openapi-ts from docs/openapi at every build (committed, never edited by hand)
      'libs/client/src/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // the ESLint plugin is CommonJS JavaScript that ESLint loads as it is (no build step)
    files: ['tools/eslint-rules/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        module: 'writable',
        describe: 'readonly',
        it: 'readonly',
        expect: 'readonly',
      },
    },
  },
  {
    // generator configuration run by Node as an ES module (libs/client: @hey-api/openapi-ts)
    files: ['**/*.config.mjs'],
    languageOptions: { sourceType: 'module', globals: { process: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['libs/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: appPackages(undefined) }] },
  },
  {
    files: ['libs/*/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [...appPackages(undefined), TEST_HELPERS] }] },
  },
  {
    files: ENGINE_LIBS.map((lib) => `libs/${lib}/src/**/*.ts`),
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', enginePurity] },
  },
  ...APPS.map((app) => ({
    files: [`apps/${app}/src/**/*.ts`],
    // `arbiter start` is the launcher: it runs the three services in one process.
    ignores: app === 'cli' ? ['apps/cli/src/commands/start.ts'] : [],
    plugins: { arbiter },
    rules: {
      'no-restricted-imports': ['error', { paths: appPackages(app) }],
      'arbiter/feature-imports': 'error',
    },
  })),
  ...APPS.map((app) => ({
    // product code never imports the test helpers (a devDependency: absent from the images)
    files: [`apps/${app}/src/**/*.ts`],
    ignores: ['**/*.spec.ts', ...(app === 'cli' ? ['apps/cli/src/commands/start.ts'] : [])],
    rules: { 'no-restricted-imports': ['error', { paths: [...appPackages(app), TEST_HELPERS] }] },
  })),
);
