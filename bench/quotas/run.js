#!/usr/bin/env node
/* global require, __dirname, process, console */
/**
 * Runs the quota gate benchmark (gate.ts) on the TypeScript sources, outside Jest (whose VM context
 * makes Date.now() several times slower): .ts files are compiled with @swc/core as the tests do, and
 * `@arbiter/<lib>` (and `@arbiter/testing`) resolve to their sources.
 *
 *   node bench/quotas/run.js          (PGlite; TEST_DATABASE_URL=postgres://… for PostgreSQL; N=200000)
 */
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.join(__dirname, '..', '..');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = /^@arbiter\/(platform|contracts|feel|rule-engine|auth|dmn)$/.exec(request);
  if (request === '@arbiter/testing')
    return resolve.call(this, path.join(root, 'tools', 'testing', 'src', 'index.ts'), ...rest);
  return resolve.call(this, lib ? path.join(root, 'libs', lib[1], 'src', 'index.ts') : request, ...rest);
};
Module._extensions['.ts'] = (module, filename) => {
  const source = require('node:fs').readFileSync(filename, 'utf8');
  const { code } = transformSync(source, {
    filename,
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};

require('./gate.ts')
  .main()
  .then(() => process.exit(0))
  .catch((error) => {
    console.error(error);
    process.exit(1);
  });
