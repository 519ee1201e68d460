import { describeService } from '@arbiter/platform';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import {
  documentPath,
  DOCUMENTS_DIR,
  operationsOf,
  REPO_ROOT,
  SERVICE_NAMES,
  serializeDocument,
} from './documents';
import { SERVICE_DEFINITIONS } from './services';

/**
 * The build step (`npm run build` runs it after the apps are built): each service's OpenAPI document, built
 * offline with `describeService` (Nest's preview mode: no database, no port), written to
 * `docs/openapi/<service>.json`. A file whose content did not change is left untouched.
 */
async function writeDocuments(): Promise<void> {
  mkdirSync(DOCUMENTS_DIR, { recursive: true });
  for (const service of SERVICE_NAMES) {
    const document = await describeService(SERVICE_DEFINITIONS[service]);
    const path = documentPath(service);
    const text = serializeDocument(document);
    const changed = !existsSync(path) || readFileSync(path, 'utf8') !== text;
    if (changed) writeFileSync(path, text);
    process.stdout.write(
      `${relative(REPO_ROOT, path)}: ${operationsOf(document).length} operations, version ${document.info.version}${changed ? ' (written)' : ' (unchanged)'}\n`,
    );
  }
}

writeDocuments().catch((error: unknown) => {
  process.stderr.write(
    `write-documents: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
