import { copyFileSync, mkdirSync } from 'node:fs';
import { relative } from 'node:path';
import { BASELINE_DIR, baselinePath, documentPath, readJson, REPO_ROOT, SERVICE_NAMES } from './documents';

/**
 * `npm run openapi:baseline` (at a release, after the build wrote the documents): the current documents
 * become the baseline that breaking changes are detected against.
 */
function refreshBaseline(): void {
  mkdirSync(BASELINE_DIR, { recursive: true });
  for (const service of SERVICE_NAMES) {
    const source = documentPath(service);
    const { version } = readJson(source).info;
    copyFileSync(source, baselinePath(service));
    process.stdout.write(
      `${relative(REPO_ROOT, baselinePath(service))}: the contract of ${service} ${version} is the baseline\n`,
    );
  }
}

try {
  refreshBaseline();
} catch (error) {
  process.stderr.write(`openapi:baseline: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
