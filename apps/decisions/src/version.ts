import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The build's version: this package's version (dist/ and src/ both sit one level under it). */
export const BUILD_VERSION: string = JSON.parse(
  readFileSync(join(__dirname, '..', 'package.json'), 'utf8'),
).version;
