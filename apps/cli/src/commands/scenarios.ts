/**
 * `arbiter scenarios gate`: runs the CI gate of a decision table (POST /api/v1/scenarios/gate) or of a
 * control-plane workflow (POST /api/v1/scenarios/workflows/{name}/gate) on a decisions service, prints coverage and failures, writes JUnit XML and SARIF so any CI shows
 * the result, and exits non-zero when the gate fails (a failed scenario, coverage below the threshold, a
 * mutation score below its threshold).
 */
import { writeFileSync } from 'node:fs';

export interface GateOptions {
  server: string;
  /** exactly one of `table` and `workflow` */
  table?: string;
  workflow?: string;
  version?: string;
  minCoverage?: string;
  minMutationScore?: string;
  /** commander's `--no-mutation` */
  mutation?: boolean;
  token?: string;
  tenant?: string;
  junit?: string;
  sarif?: string;
  json?: boolean;
}

interface Finding {
  rowId: string;
  column: string | null;
  cell?: string;
  value?: unknown;
  message: string;
}
interface Failure {
  scenarioId: string;
  scenarioName: string;
  status: string;
  inputFacts: Record<string, unknown>;
  expected: { matchedRows: string[]; outputs: unknown; errorCode: string | null };
  actual: { matchedRows: string[]; outputs: unknown; errors: string[] };
  analysis: Finding[];
}
export interface GateResult {
  /** what was gated (a workflow's result is read into the same shape: rules stand for rows) */
  subject?: 'table' | 'workflow';
  runId: string;
  planId: string;
  tableId: string;
  tableName: string;
  tableVersion: number;
  planVersion: number;
  passed: boolean;
  reasons: string[];
  gate: { minCoverage: number; minMutationScore: number | null };
  coverage: {
    rows: { total: number; hit: number; percent: number; unhit: string[] };
    conditions: { total: number; bothSides: number; percent: number };
  };
  scenarios: { total: number; passed: number; failed: number; errored: number };
  failures: Failure[];
  mutation: {
    mutants: number;
    killed: number;
    survived: number;
    score: number;
    sampled: boolean;
    survivors: { description: string; rowId: string; column: string | null }[];
  } | null;
  duration: number;
}

function number(raw: string | undefined, name: string, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min || n > max)
    throw new Error(`${name} must be a number from ${min} to ${max}`);
  return n;
}

interface WorkflowGateAnswer {
  runId: string;
  planId: string;
  workflowName: string;
  workflowVersion: number;
  planVersion: number;
  passed: boolean;
  reasons: string[];
  gate: { minCoverage: number; minMutationScore: number | null };
  mutation: GateResult['mutation'];
  coverage: {
    percent: number;
    rules: {
      total: number;
      hit: number;
      bothSides: number;
      percent: number;
      unhit: string[];
      oneSided: string[];
    };
    nodes: { total: number; hit: number; percent: number; unhit: string[] };
    edges: { total: number; hit: number; percent: number; unhit: string[] };
  };
  scenarios: GateResult['scenarios'];
  failures: Failure[];
  duration: number;
}

/** A workflow's gate in the table's shape: rules (or flow nodes and edges) stand for rows. */
function fromWorkflow(w: WorkflowGateAnswer): GateResult {
  const flow = w.coverage.nodes.total > 0;
  return {
    subject: 'workflow',
    runId: w.runId,
    planId: w.planId,
    tableId: w.workflowName,
    tableName: w.workflowName,
    tableVersion: w.workflowVersion,
    planVersion: w.planVersion,
    passed: w.passed,
    reasons: w.reasons,
    gate: { minCoverage: w.gate.minCoverage, minMutationScore: w.gate.minMutationScore ?? null },
    coverage: {
      rows: {
        total: flow ? w.coverage.nodes.total + w.coverage.edges.total : w.coverage.rules.total,
        hit: flow ? w.coverage.nodes.hit + w.coverage.edges.hit : w.coverage.rules.bothSides,
        percent: w.coverage.percent,
        unhit: [...w.coverage.rules.oneSided, ...w.coverage.nodes.unhit, ...w.coverage.edges.unhit],
      },
      conditions: {
        total: w.coverage.rules.total,
        bothSides: w.coverage.rules.bothSides,
        percent: w.coverage.rules.percent,
      },
    },
    scenarios: w.scenarios,
    failures: w.failures,
    mutation: w.mutation ?? null,
    duration: w.duration,
  };
}

/** Calls the gate route; throws with the service's error body on a non-2xx answer. */
export async function fetchGate(options: GateOptions): Promise<GateResult> {
  const minCoverage = number(options.minCoverage ?? '90', '--min-coverage', 0, 100);
  const minMutationScore = number(options.minMutationScore, '--min-mutation-score', 0, 100);
  const version = number(options.version, '--version', 1, 1e9);
  const base = options.server.replace(/\/+$/, '');
  if (options.workflow) {
    const answer = await post<WorkflowGateAnswer>(
      `${base}/api/v1/scenarios/workflows/${encodeURIComponent(options.workflow)}/gate`,
      options,
      {
        minCoverage,
        ...(version !== undefined ? { version } : {}),
        ...(minMutationScore !== undefined ? { minMutationScore } : {}),
        mutation: options.mutation !== false,
      },
    );
    return fromWorkflow(answer);
  }
  return post<GateResult>(`${base}/api/v1/scenarios/gate`, options, {
    tableId: options.table,
    minCoverage,
    ...(version !== undefined ? { version } : {}),
    ...(minMutationScore !== undefined ? { minMutationScore } : {}),
    mutation: options.mutation !== false,
  });
}

async function post<T>(url: string, options: GateOptions, payload: unknown): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.tenant ? { 'x-tenant-id': options.tenant } : {}),
    },
    body: JSON.stringify(payload),
  });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (!res.ok) {
    const code = body?.code ? ` ${body.code}` : '';
    throw new Error(`gate request failed: HTTP ${res.status}${code}: ${body?.error ?? text.slice(0, 200)}`);
  }
  return body as T;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + ' '.repeat(n - s.length));

/** The table printed on the terminal. */
export function formatGate(r: GateResult): string {
  const lines = [
    `${r.passed ? 'PASSED' : 'FAILED'}: scenario gate of ${r.subject ?? 'table'} '${r.tableName}' v${r.tableVersion} (plan from v${r.planVersion})`,
    '',
    `${pad('measure', 22)}${pad('value', 16)}threshold`,
    `${pad(r.subject === 'workflow' ? 'coverage' : 'row coverage', 22)}${pad(`${r.coverage.rows.percent} % (${r.coverage.rows.hit}/${r.coverage.rows.total})`, 16)}${r.gate.minCoverage} %`,
    `${pad(r.subject === 'workflow' ? 'rules both ways' : 'condition coverage', 22)}${pad(`${r.coverage.conditions.percent} %`, 16)}-`,
    `${pad('scenarios passed', 22)}${pad(`${r.scenarios.passed}/${r.scenarios.total}`, 16)}all`,
    `${pad('scenarios failed', 22)}${pad(String(r.scenarios.failed), 16)}0`,
    `${pad('scenarios errored', 22)}${pad(String(r.scenarios.errored), 16)}0`,
  ];
  if (r.mutation)
    lines.push(
      `${pad('mutation score', 22)}${pad(`${r.mutation.score} % (${r.mutation.killed}/${r.mutation.mutants})`, 16)}${r.gate.minMutationScore ?? '-'}${r.gate.minMutationScore === null ? '' : ' %'}`,
    );
  if (r.coverage.rows.unhit.length)
    lines.push('', `rows no scenario reaches: ${r.coverage.rows.unhit.join(', ')}`);
  if (r.failures.length) {
    lines.push('', 'failures:');
    for (const f of r.failures) {
      lines.push(`  ${f.status} ${f.scenarioName}`);
      lines.push(`    input ${JSON.stringify(f.inputFacts)}`);
      lines.push(
        `    expected ${JSON.stringify(f.expected.matchedRows)} ${JSON.stringify(f.expected.outputs)}, got ${JSON.stringify(f.actual.matchedRows)} ${JSON.stringify(f.actual.outputs)}`,
      );
      for (const a of f.analysis) lines.push(`    - ${a.message}`);
    }
  }
  if (r.reasons.length) lines.push('', ...r.reasons.map((x) => `gate: ${x}`));
  return lines.join('\n');
}

const xml = (s: string) =>
  s.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] as string,
  );

/** JUnit XML: one test case per failed scenario, the passing ones together, coverage and mutation score. */
export function toJUnit(r: GateResult): string {
  const cases: string[] = [];
  const suite = `scenarios.${r.tableName}`;
  for (const f of r.failures) {
    const detail = [
      `input: ${JSON.stringify(f.inputFacts)}`,
      `expected: ${JSON.stringify(f.expected)}`,
      `actual: ${JSON.stringify(f.actual)}`,
      ...f.analysis.map((a) => a.message),
    ].join('\n');
    const tag = f.status === 'Error' ? 'error' : 'failure';
    cases.push(
      `    <testcase classname="${xml(suite)}" name="${xml(f.scenarioName)}"><${tag} message="${xml(f.analysis[0]?.message ?? f.status)}">${xml(detail)}</${tag}></testcase>`,
    );
  }
  cases.push(`    <testcase classname="${xml(suite)}" name="${r.scenarios.passed} scenarios passed"/>`);
  const covered = r.coverage.rows.percent >= r.gate.minCoverage;
  cases.push(
    `    <testcase classname="${xml(suite)}" name="row coverage ${r.coverage.rows.percent} % (min ${r.gate.minCoverage} %)">${
      covered
        ? ''
        : `<failure message="row coverage below threshold">${xml(`rows not reached: ${r.coverage.rows.unhit.join(', ')}`)}</failure>`
    }</testcase>`,
  );
  if (r.mutation) {
    const ok = r.gate.minMutationScore === null || r.mutation.score >= r.gate.minMutationScore;
    cases.push(
      `    <testcase classname="${xml(suite)}" name="mutation score ${r.mutation.score} %">${
        ok
          ? ''
          : `<failure message="mutation score below threshold">${xml(r.mutation.survivors.map((s) => s.description).join('\n'))}</failure>`
      }</testcase>`,
    );
  }
  const failures = r.failures.filter((f) => f.status !== 'Error').length + (covered ? 0 : 1);
  const errors = r.failures.filter((f) => f.status === 'Error').length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="arbiter scenarios" tests="${cases.length}" failures="${failures}" errors="${errors}" time="${(r.duration / 1000).toFixed(3)}">`,
    `  <testsuite name="${xml(suite)}" tests="${cases.length}" failures="${failures}" errors="${errors}" time="${(r.duration / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** SARIF 2.1.0: failed scenarios and a coverage shortfall as errors, surviving mutants as warnings. */
export function toSarif(r: GateResult): string {
  const location = (rowId: string | null) => ({
    logicalLocations: [
      {
        name: rowId ?? r.tableName,
        fullyQualifiedName: `${r.tableName}${rowId ? `/${rowId}` : ''}`,
        kind: 'member',
      },
    ],
  });
  const results: unknown[] = r.failures.map((f) => ({
    ruleId: 'scenario-failed',
    level: 'error',
    message: { text: `${f.scenarioName}: ${f.analysis.map((a) => a.message).join('; ') || f.status}` },
    locations: [location(f.analysis[0]?.rowId ?? f.expected.matchedRows[0] ?? null)],
    properties: { scenarioId: f.scenarioId, inputFacts: f.inputFacts },
  }));
  if (r.coverage.rows.percent < r.gate.minCoverage)
    results.push({
      ruleId: 'coverage-below-threshold',
      level: 'error',
      message: {
        text: `row coverage ${r.coverage.rows.percent} % is below ${r.gate.minCoverage} % (not reached: ${r.coverage.rows.unhit.join(', ')})`,
      },
      locations: [location(null)],
    });
  for (const s of r.mutation?.survivors ?? [])
    results.push({
      ruleId: 'mutant-survived',
      level: 'warning',
      message: { text: `no scenario notices: ${s.description}` },
      locations: [location(s.rowId)],
    });
  return `${JSON.stringify(
    {
      $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
      version: '2.1.0',
      runs: [
        {
          tool: {
            driver: {
              name: 'arbiter-scenarios',
              informationUri: 'https://arbiter.dev',
              rules: [
                {
                  id: 'scenario-failed',
                  shortDescription: { text: 'A scenario does not get its expected behaviour' },
                },
                {
                  id: 'coverage-below-threshold',
                  shortDescription: { text: 'Row coverage is below the gate threshold' },
                },
                {
                  id: 'mutant-survived',
                  shortDescription: { text: 'A mutant of the table is not detected by any scenario' },
                },
              ],
            },
          },
          results,
          properties: { passed: r.passed, runId: r.runId, tableId: r.tableId, tableVersion: r.tableVersion },
        },
      ],
    },
    null,
    2,
  )}\n`;
}

/** The whole command: gate, print, write reports; returns the exit code (0 passed, 1 gate failed). */
export async function runScenariosGate(options: GateOptions, out: (text: string) => void): Promise<number> {
  const result = await fetchGate(options);
  out(options.json ? JSON.stringify(result, null, 2) : formatGate(result));
  if (options.junit) writeFileSync(options.junit, toJUnit(result));
  if (options.sarif) writeFileSync(options.sarif, toSarif(result));
  return result.passed ? 0 : 1;
}
