import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** One problem Redocly reports. */
export interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  /** JSON pointer into the document. */
  pointer: string;
}

/** The `redocly` executable of the installed @redocly/cli (the one `npm run lint:openapi` runs). */
function redoclyBin(): string {
  const manifestPath = require.resolve('@redocly/cli/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin.redocly;
  return join(dirname(manifestPath), bin);
}

/**
 * Lints one document with Redocly (`--format=json`) under `configPath`, and returns every problem. The CLI
 * is run rather than its library: @redocly/cli 2.77 bundles its own @redocly/openapi-core, and the registry's
 * newest separate @redocly/openapi-core is 2.64, whose rules may differ; the CLI is what `npm run
 * lint:openapi` and CI run, so the test and CI cannot disagree.
 */
export function lintDocument(documentPath: string, configPath: string): Promise<LintProblem[]> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      process.execPath,
      [redoclyBin(), 'lint', documentPath, '--format=json', `--config=${configPath}`],
      {
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
      (error, stdout, stderr) => {
        // exit code 1 means "problems found": the JSON report is on stdout either way
        let report: any;
        try {
          report = JSON.parse(stdout);
        } catch {
          reject(
            new Error(
              `redocly lint ${documentPath} printed no JSON report (${error?.message ?? 'no error'}): ${stderr.slice(-2000)}`,
            ),
          );
          return;
        }
        resolvePromise(
          (report.problems ?? []).map((problem: any) => ({
            ruleId: String(problem.ruleId),
            severity: problem.severity === 'error' ? 'error' : 'warn',
            message: String(problem.message),
            pointer: String(problem.location?.[0]?.pointer ?? ''),
          })),
        );
      },
    );
  });
}

/** A problem as a line: `error operation-summary: … at #/paths/~1x/get`. */
export function formatProblem(problem: LintProblem): string {
  return `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.pointer}`;
}
