/** DMN TCK runner: loads every compliance directory, evaluates the test cases, compares with the TCK rules. */
import { readFileSync, readdirSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatValue, FeelValue } from '@arbiter/feel';
import { DmnEvaluator, DmnModel, child, children, parseXml, readDmn } from '@arbiter/dmn';
import { expectedXsdType, parseValueHolder, tckEquals } from './values';

export interface CaseResult {
  testCase: string;
  result: string;
  status: 'passed' | 'failed' | 'not run';
  expected?: string;
  actual?: string;
  reason?: string;
  warnings?: string[];
}
export interface DirectoryResult {
  directory: string;
  level: string;
  feelFocused: boolean;
  passed: number;
  failed: number;
  notRun: number;
  cases: CaseResult[];
}
export interface TckReport {
  tckDir: string;
  startedAt: string;
  durationMs: number;
  totals: { passed: number; failed: number; notRun: number };
  feelFocused: { passed: number; failed: number; notRun: number; directories: number };
  directories: DirectoryResult[];
}

/** FEEL-focused: every decision is a literal expression (no tables, no boxed expressions, no BKMs or services). */
export function isFeelFocused(models: DmnModel[]): boolean {
  return models.every(
    (m) =>
      m.bkms.length === 0 &&
      m.decisionServices.length === 0 &&
      m.decisions.every((d) => !d.expression || d.expression.kind === 'literal'),
  );
}

export function runDirectory(dir: string, level: string): DirectoryResult {
  const name = dir.split('/').pop()!;
  const res: DirectoryResult = {
    directory: name,
    level,
    feelFocused: false,
    passed: 0,
    failed: 0,
    notRun: 0,
    cases: [],
  };
  const files = readdirSync(dir);
  const models = new Map<string, DmnModel>();
  const loadErrors = new Map<string, string>();
  for (const f of files.filter((f) => f.endsWith('.dmn'))) {
    try {
      models.set(f, readDmn(readFileSync(join(dir, f), 'utf8')));
    } catch (e) {
      loadErrors.set(f, (e as Error).message);
    }
  }
  res.feelFocused = models.size > 0 && (name.includes('-feel-') || isFeelFocused([...models.values()]));
  for (const tf of files.filter((f) => /test.*\.xml$/.test(f)).sort()) {
    const doc = parseXml(readFileSync(join(dir, tf), 'utf8'));
    const modelName = (child(doc, 'modelName')?.text ?? '').trim();
    const model = models.get(modelName) ?? (models.size === 1 ? [...models.values()][0] : undefined);
    const evaluator = model ? new DmnEvaluator(model, { models: [...models.values()] }) : null;
    for (const tc of children(doc, 'testCase')) {
      const tcId = tc.attrs.id ?? '?';
      const inputs: Record<string, FeelValue> = {};
      for (const inp of children(tc, 'inputNode')) inputs[inp.attrs.name ?? ''] = parseValueHolder(inp);
      const results = children(tc, 'resultNode');
      const missingImport = model?.imports.find(
        (i) => ![...models.values()].some((m) => m.namespace === i.namespace),
      );
      if (!evaluator || missingImport) {
        for (const r of results)
          res.cases.push({
            testCase: tcId,
            result: r.attrs.name ?? '',
            status: 'not run',
            reason:
              loadErrors.get(modelName) ??
              (model
                ? `imported model ${missingImport?.namespace} not found`
                : `model ${modelName} not found`),
          });
        continue;
      }
      let serviceResult: FeelValue | undefined;
      let serviceWarnings: string[] = [];
      if (tc.attrs.type === 'decisionService' && tc.attrs.invocableName) {
        try {
          const o = evaluator.invoke(tc.attrs.invocableName, inputs);
          serviceResult = o.value;
          serviceWarnings = o.warnings;
        } catch (e) {
          serviceResult = null;
          serviceWarnings = [(e as Error).message];
        }
      }
      for (const r of results) {
        const rname = r.attrs.name ?? '';
        const exp = child(r, 'expected');
        const expected = exp ? parseValueHolder(exp) : null;
        const xsd = exp ? expectedXsdType(exp) : undefined;
        let actual: FeelValue = null;
        let warnings: string[] = [];
        try {
          if (serviceResult !== undefined) {
            const sr = serviceResult;
            actual =
              sr !== null &&
              typeof sr === 'object' &&
              !Array.isArray(sr) &&
              Object.prototype.hasOwnProperty.call(sr, rname)
                ? (sr as Record<string, FeelValue>)[rname]
                : sr;
            warnings = serviceWarnings;
          } else {
            const o = evaluator.evaluateDecision(rname, inputs);
            actual = o.value;
            warnings = o.warnings;
          }
        } catch (e) {
          res.cases.push({ testCase: tcId, result: rname, status: 'not run', reason: (e as Error).message });
          continue;
        }
        const ok =
          r.attrs.errorResult === 'true' && !exp ? actual === null : tckEquals(expected, actual, xsd);
        res.cases.push({
          testCase: tcId,
          result: rname,
          status: ok ? 'passed' : 'failed',
          ...(ok
            ? {}
            : {
                expected: formatValue(expected),
                actual: formatValue(actual),
                warnings: warnings.slice(0, 5),
              }),
        });
      }
    }
  }
  for (const c of res.cases) {
    if (c.status === 'passed') res.passed++;
    else if (c.status === 'failed') res.failed++;
    else res.notRun++;
  }
  return res;
}

export function runTck(tckDir: string, filter?: RegExp): TckReport {
  const started = Date.now();
  const report: TckReport = {
    tckDir,
    startedAt: new Date(started).toISOString(),
    durationMs: 0,
    totals: { passed: 0, failed: 0, notRun: 0 },
    feelFocused: { passed: 0, failed: 0, notRun: 0, directories: 0 },
    directories: [],
  };
  for (const level of ['compliance-level-2', 'compliance-level-3']) {
    const base = join(tckDir, level);
    if (!existsSync(base)) continue;
    for (const d of readdirSync(base).sort()) {
      const full = join(base, d);
      if (!statSync(full).isDirectory()) continue;
      if (filter && !filter.test(d)) continue;
      let r: DirectoryResult;
      try {
        r = runDirectory(full, level);
      } catch (e) {
        r = {
          directory: d,
          level,
          feelFocused: false,
          passed: 0,
          failed: 0,
          notRun: 1,
          cases: [{ testCase: '*', result: '*', status: 'not run', reason: (e as Error).message }],
        };
      }
      report.directories.push(r);
      report.totals.passed += r.passed;
      report.totals.failed += r.failed;
      report.totals.notRun += r.notRun;
      if (r.feelFocused) {
        report.feelFocused.passed += r.passed;
        report.feelFocused.failed += r.failed;
        report.feelFocused.notRun += r.notRun;
        report.feelFocused.directories++;
      }
    }
  }
  report.durationMs = Date.now() - started;
  return report;
}
