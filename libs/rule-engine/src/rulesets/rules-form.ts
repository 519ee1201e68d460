/**
 * The spec's rules form: `{ rules: [{ id, name, condition, output }], decisionTables?, expressionLanguage? }`.
 *
 * Compilation (once): every condition is compiled to a closure: FEEL by default, a C#-style lambda
 * (RulesEngine syntax, see ./lambda) when `expressionLanguage` is `'lambda'`; embedded decision tables are
 * compiled with compileDecisionTable. Any problem throws RuleDocumentCompileError listing every problem
 * with its path (`rules[2].condition: …`).
 *
 * Evaluation:
 * 1. The embedded decision tables run first, in document order, each against the facts. A table's
 *    output values (`outputValues` of the table result: an object per single-hit policy, lists per
 *    multi-hit, null when nothing matched and no defaults) go into the scope and into `outputs` under the
 *    table's name. A table that fails (missing required input, hit-policy violation) gives null, an error
 *    `{ ruleName: <table name>, code: <the table's error code> }` and an unmatched trace.
 * 2. Then every rule, in document order. Scope of a condition: FEEL: the facts' top-level names, plus
 *    `input` and `facts` bound to the whole facts, plus the table names (they shadow facts of the same
 *    name; a fact named `input` or `facts` wins over the alias). Lambda: the facts' names, `input`/`input1` (the whole facts unless the facts have such a key),
 *    plus the table names.
 * 3. A rule matches when its condition is exactly `true`. Its `output` object is merged into `outputs`
 *    key by key: later matching rules override the keys earlier ones set (last writer wins, like a
 *    RuleOrder collect of assignments). `false` is a plain non-match. Anything else (an evaluation error,
 *    null, a non-boolean) is a non-match with `failReason` and an error `{ ruleName, code:
 *    'EXPRESSION_FAILED', message }`.
 * 4. Output values are constants, except strings starting with `=`: the rest is an expression in the
 *    document's language, evaluated against the same scope when the rule matches (`"=amount * 0.1"`).
 *    A failing output expression sets that key to null and records an EXPRESSION_FAILED error.
 *
 * `rulesMatched` holds rule names, `traces` one entry per table (kind `decision-table`) and per rule
 * (`ruleName` is the rule's name), `rulesExecuted` counts the rules evaluated (not tables). With
 * `trace: false` no traces are collected and nothing is timed. A passed `deadline` or an aborted `signal`
 * stops before the next table or rule with a `DEADLINE_EXCEEDED` / `CANCELLED` error.
 */
import {
  CompiledExpression,
  EvaluationAborted,
  EvaluationContext,
  FeelSyntaxError,
  STEP_BUDGET,
  Scope,
  compileExpression,
  currentEvaluation,
  enterEvaluation,
  leaveEvaluation,
  runEvaluation,
  toJs,
} from '@arbiter/feel';
import { CompiledDecisionTable, compileDecisionTable } from '../compile';
import { forEachYielding } from '../yielding';
import { EvaluationError, TableCompileError } from '../errors';
import { CompiledLambda, LambdaSyntaxError, compileLambda } from './lambda';
import type {
  CompiledRuleSet,
  Facts,
  RuleSetCompileContext,
  RuleSetEvaluation,
  RuleSetEvaluationError,
  RuleSetEvaluationOptions,
  RuleTrace,
} from './types';

/** A rule set document that cannot be compiled; `problems` name each failing place by its path. */
export class RuleDocumentCompileError extends Error {
  readonly code = 'RULESET_COMPILE_FAILED';
  constructor(readonly problems: { path: string; message: string }[]) {
    super(problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; '));
    this.name = 'RuleDocumentCompileError';
  }
}

export type RulesExpressionLanguage = 'feel' | 'lambda';

export interface RulesFormRule {
  id: string;
  name: string;
  condition: string;
  output?: Record<string, unknown>;
}

export interface RulesFormDocument {
  rules: RulesFormRule[];
  decisionTables?: unknown[];
  expressionLanguage?: RulesExpressionLanguage;
}

// ------------------------------------------------------------------ shared by the evaluators (internal)

/** Milliseconds, sub-millisecond resolution. */
export const now: () => number =
  typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();

/**
 * The bounded FEEL evaluation context of one rule-set evaluation: the caller's (`options.budget`, a sub
 * flow's caller) or a new one with `options.maxSteps` and `options.deadline`.
 */
export function evaluationBudget(options: RuleSetEvaluationOptions | undefined): EvaluationContext {
  return (
    options?.budget ??
    new EvaluationContext(null).restart(options?.maxSteps ?? STEP_BUDGET, options?.deadline ?? Infinity)
  );
}

/** The error of a FEEL budget or deadline abort (a rule's, a node's or a table's), or null for another error. */
export function budgetError(e: unknown): RuleSetEvaluationError | null {
  if (e instanceof EvaluationAborted && e.reason !== 'depth')
    return {
      code: e.code,
      message:
        e.reason === 'deadline'
          ? 'the evaluation ran past its deadline'
          : 'the evaluation ran out of its FEEL step budget (loop iterations and function calls)',
    };
  if (
    e instanceof EvaluationError &&
    (e.code === 'EVALUATION_BUDGET_EXCEEDED' || e.code === 'DEADLINE_EXCEEDED')
  )
    return { code: e.code, message: e.message };
  return null;
}

/** The error that stops an evaluation before the next rule, or null to go on. */
export function interruption(options: RuleSetEvaluationOptions | undefined): RuleSetEvaluationError | null {
  if (!options) return null;
  if (options.deadline !== undefined && Date.now() > options.deadline)
    return { code: 'DEADLINE_EXCEEDED', message: 'evaluation deadline passed' };
  if (options.signal?.aborted) return { code: 'CANCELLED', message: 'evaluation cancelled' };
  return null;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Deep copy and freeze of a JSON value, so shared constants cannot be changed through an evaluation's outputs. */
export function frozenCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  const copy: unknown = Array.isArray(value)
    ? value.map(frozenCopy)
    : Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, frozenCopy(v)]));
  return Object.freeze(copy) as T;
}

// ------------------------------------------------------------------ compiled pieces

/** What an expression sees during one evaluation (built once per evaluation). */
interface EvaluationScope {
  facts: Facts;
  /** decision-table results by table name (undefined when the document has no tables) */
  tables: Record<string, unknown> | undefined;
  /** FEEL scope chain, built on first use */
  feel: Scope | null;
}

/** Evaluates a condition or output expression. */
type Evaluator = (scope: EvaluationScope) => unknown;

interface CompiledOutput {
  key: string;
  evaluate: Evaluator;
}

interface CompiledRule {
  name: string;
  condition: Evaluator;
  /** constant outputs (frozen), or null */
  constants: Record<string, unknown> | null;
  constantKeys: string[];
  /** `=expression` outputs */
  computed: CompiledOutput[];
}

interface CompiledTable {
  name: string;
  table: CompiledDecisionTable;
}

/** A FEEL expression gave null with warnings (FEEL's way of failing). */
class FeelNullResult extends Error {
  constructor(readonly warnings: string[]) {
    super(`evaluated to null: ${warnings.join('; ')}`);
  }
}

/** Message of a failed condition or output expression (`what` names it). */
function failureOf(what: string, e: unknown): string {
  return `${what} ${e instanceof FeelNullResult ? e.message : `failed: ${errorMessage(e)}`}`;
}

function feelScopeOf(s: EvaluationScope): Scope {
  const { facts, tables } = s;
  // tables shadow facts, facts shadow the `input`/`facts` aliases
  const chain = new Scope(facts, new Scope({ input: facts, facts }, null));
  return (s.feel = tables === undefined ? chain : new Scope(tables, chain));
}

/** A lambda result as an output fact (DateTime → ISO-8601 string). */
function lambdaOutput(v: unknown): unknown {
  return v instanceof Date ? v.toISOString() : v;
}

function feelEvaluator(expr: CompiledExpression, output: boolean): Evaluator {
  return (s) => {
    const scope = s.feel ?? feelScopeOf(s);
    const v = expr.evaluateIn(scope);
    if (v === null) {
      // FEEL reports errors as null plus warnings: fetch them for the message (rare path), within what is
      // left of the evaluation's budget and deadline
      const sink: string[] = [];
      const budget = currentEvaluation();
      runEvaluation(
        sink,
        () => expr.evaluateIn(scope),
        budget ? { maxSteps: Math.max(0, budget.stepsLeft), deadline: budget.deadline } : undefined,
      );
      if (sink.length) throw new FeelNullResult(sink);
      return null;
    }
    return output ? toJs(v) : v;
  };
}

function lambdaEvaluator(fn: CompiledLambda, output: boolean): Evaluator {
  return output ? (s) => lambdaOutput(fn(s.facts, s.tables)) : (s) => fn(s.facts, s.tables);
}

function compileExpressionIn(
  language: RulesExpressionLanguage,
  source: string,
  tableNames: string[],
  path: string,
  problems: { path: string; message: string }[],
  output = false,
): Evaluator | null {
  try {
    if (language === 'lambda') return lambdaEvaluator(compileLambda(source, tableNames), output);
    return feelEvaluator(compileExpression(source, { scope: ['input', 'facts', ...tableNames] }), output);
  } catch (e) {
    if (e instanceof LambdaSyntaxError || e instanceof FeelSyntaxError)
      problems.push({ path, message: language === 'lambda' ? e.message : `FEEL syntax error: ${e.message}` });
    else problems.push({ path, message: errorMessage(e) });
    return null;
  }
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return `string "${v.length > 40 ? v.slice(0, 40) + '…' : v}"`;
  if (typeof v === 'object') return Array.isArray(v) ? 'a list' : isPlain(v) ? 'an object' : String(v);
  return `${typeof v} ${String(v)}`;
}

/** Compiles the spec's rules form (shape `rules`). Throws RuleDocumentCompileError. */
export async function compileRulesForm(
  doc: unknown,
  _ctx: RuleSetCompileContext = {},
): Promise<CompiledRuleSet> {
  // rules compiled in slices that give the event loop back: a 10,000-rule version holds no other request
  const compiler = rulesFormCompiler(doc);
  if (Array.isArray(compiler.rules)) await forEachYielding(compiler.rules, compiler.compileRule);
  return compiler.finish();
}

/** Synchronous form of compileRulesForm (nothing in this shape needs a port). */
export function compileRulesFormSync(doc: unknown, _ctx: RuleSetCompileContext = {}): CompiledRuleSet {
  const compiler = rulesFormCompiler(doc);
  if (Array.isArray(compiler.rules)) compiler.rules.forEach(compiler.compileRule);
  return compiler.finish();
}

/** The compilation of a rules-form document: the tables at once, then `compileRule` per rule, then `finish`. */
function rulesFormCompiler(doc: unknown): {
  rules: unknown;
  compileRule: (rule: unknown, i: number) => void;
  finish: () => CompiledRuleSet;
} {
  const problems: { path: string; message: string }[] = [];
  if (!isRecord(doc)) throw new RuleDocumentCompileError([{ path: '', message: 'must be a JSON object' }]);
  const language = doc.expressionLanguage ?? 'feel';
  if (language !== 'feel' && language !== 'lambda')
    problems.push({ path: 'expressionLanguage', message: "must be 'feel' or 'lambda'" });

  const tables: CompiledTable[] = [];
  if (doc.decisionTables !== undefined && doc.decisionTables !== null) {
    if (!Array.isArray(doc.decisionTables))
      problems.push({ path: 'decisionTables', message: 'must be an array of decision tables' });
    else
      doc.decisionTables.forEach((definition, i) => {
        const name = isRecord(definition) ? definition.name : undefined;
        if (typeof name !== 'string' || name.trim() === '') {
          problems.push({ path: `decisionTables[${i}].name`, message: 'required (non-empty string)' });
          return;
        }
        if (tables.some((t) => t.name === name)) {
          problems.push({ path: `decisionTables[${i}].name`, message: `duplicate table name '${name}'` });
          return;
        }
        try {
          tables.push({ name, table: compileDecisionTable(definition) });
        } catch (e) {
          if (e instanceof TableCompileError)
            for (const p of e.problems)
              problems.push({
                path: `decisionTables[${i}]${p.rowId ? `.rows[${p.rowId}]` : ''}${p.column ? `.${p.column}` : ''}`,
                message: p.message,
              });
          else problems.push({ path: `decisionTables[${i}]`, message: errorMessage(e) });
        }
      });
  }
  const tableNames = tables.map((t) => t.name);
  const lang: RulesExpressionLanguage = language === 'lambda' ? 'lambda' : 'feel';

  const rules: CompiledRule[] = [];
  if (!Array.isArray(doc.rules)) problems.push({ path: 'rules', message: 'must be an array' });
  const compileRule = (rule: unknown, i: number): void => {
    const at = `rules[${i}]`;
    if (!isRecord(rule)) {
      problems.push({ path: at, message: 'must be an object' });
      return;
    }
    const name = typeof rule.name === 'string' && rule.name !== '' ? rule.name : rule.id;
    if (typeof name !== 'string' || name === '')
      problems.push({ path: `${at}.name`, message: 'required (non-empty string)' });
    if (typeof rule.condition !== 'string' || rule.condition.trim() === '') {
      problems.push({ path: `${at}.condition`, message: 'required (non-empty string)' });
      return;
    }
    const condition = compileExpressionIn(lang, rule.condition, tableNames, `${at}.condition`, problems);
    if (rule.output !== undefined && rule.output !== null && !isRecord(rule.output)) {
      problems.push({ path: `${at}.output`, message: 'must be an object of output facts' });
      return;
    }
    const constants: Record<string, unknown> = {};
    const computed: CompiledOutput[] = [];
    for (const [key, value] of Object.entries(rule.output ?? {})) {
      if (typeof value === 'string' && value.startsWith('=')) {
        const evaluate = compileExpressionIn(
          lang,
          value.slice(1),
          tableNames,
          `${at}.output.${key}`,
          problems,
          true,
        );
        if (evaluate) computed.push({ key, evaluate });
      } else constants[key] = frozenCopy(value);
    }
    const constantKeys = Object.keys(constants);
    if (condition && typeof name === 'string')
      rules.push({
        name,
        condition,
        constants: constantKeys.length ? Object.freeze(constants) : null,
        constantKeys,
        computed,
      });
  };
  return {
    rules: doc.rules,
    compileRule,
    finish: () => {
      if (problems.length) throw new RuleDocumentCompileError(problems);
      return new CompiledRulesForm(rules, tables);
    },
  };
}

class CompiledRulesForm implements CompiledRuleSet {
  readonly shape = 'rules' as const;
  readonly ruleNames: readonly string[];

  constructor(
    private readonly rules: CompiledRule[],
    private readonly tables: CompiledTable[],
  ) {
    this.ruleNames = Object.freeze(rules.map((r) => r.name));
  }

  async evaluate(facts: Facts, options?: RuleSetEvaluationOptions): Promise<RuleSetEvaluation> {
    return this.evaluateSync(facts, options);
  }

  evaluateNow(facts: Facts, options?: RuleSetEvaluationOptions): RuleSetEvaluation {
    return this.evaluateSync(facts, options);
  }

  /**
   * The evaluation itself (no await anywhere), as one bounded FEEL evaluation: every table, condition and
   * output expression spends one step budget and keeps the deadline; running out stops the evaluation
   * with an `EVALUATION_BUDGET_EXCEEDED` / `DEADLINE_EXCEEDED` error.
   */
  evaluateSync(input: Facts, options?: RuleSetEvaluationOptions): RuleSetEvaluation {
    const outer = enterEvaluation(evaluationBudget(options));
    try {
      return this.evaluateBounded(input, options);
    } finally {
      leaveEvaluation(outer);
    }
  }

  private evaluateBounded(input: Facts, options?: RuleSetEvaluationOptions): RuleSetEvaluation {
    const facts: Facts = isRecord(input) ? input : {};
    const trace = options?.trace !== false;
    const watch = options !== undefined && (options.deadline !== undefined || options.signal !== undefined);
    const outputs: Facts = {};
    const traces: RuleTrace[] = [];
    const errors: RuleSetEvaluationError[] = [];
    const rulesMatched: string[] = [];
    let rulesExecuted = 0;
    let tableValues: Record<string, unknown> | undefined;
    const result = (): RuleSetEvaluation => ({
      outputs,
      traces,
      errors,
      rulesMatched,
      rulesExecuted,
      sideEffectsApplied: false,
    });

    if (this.tables.length) {
      tableValues = {};
      for (const { name, table } of this.tables) {
        if (watch) {
          const stop = interruption(options);
          if (stop) return (errors.push(stop), result());
        }
        const started = trace ? now() : 0;
        let value: Record<string, unknown> | null = null;
        let matched = false;
        let failReason: string | null = null;
        try {
          const r = table.evaluate(facts);
          value = r.outputValues;
          matched = r.matchedRows.length > 0;
          if (!matched) failReason = 'no row matched';
        } catch (e) {
          const stop = budgetError(e);
          if (stop) return (errors.push({ ruleName: name, ...stop }), result());
          failReason = errorMessage(e);
          errors.push({
            ruleName: name,
            code: e instanceof EvaluationError ? e.code : 'DECISION_TABLE_FAILED',
            message: failReason,
          });
        }
        tableValues[name] = value;
        outputs[name] = value;
        if (trace)
          traces.push({
            ruleName: name,
            kind: 'decision-table',
            matched,
            failReason,
            durationMs: now() - started,
            ...(value ? { outputs: value } : {}),
          });
      }
    }

    const scope: EvaluationScope = { facts, tables: tableValues, feel: null };
    for (const rule of this.rules) {
      if (watch) {
        const stop = interruption(options);
        if (stop) return (errors.push(stop), result());
      }
      const started = trace ? now() : 0;
      rulesExecuted++;
      let failReason: string | null = null;
      let produced: Facts | undefined;
      try {
        const v = rule.condition(scope);
        if (v === true) {
          rulesMatched.push(rule.name);
          produced = this.apply(rule, scope, outputs, errors, trace);
        } else if (v === false) failReason = 'condition is false';
        else {
          failReason = `condition evaluated to ${describe(v)}, not a boolean`;
          errors.push({ ruleName: rule.name, code: 'EXPRESSION_FAILED', message: failReason });
        }
      } catch (e) {
        const stop = budgetError(e);
        if (stop) return (errors.push({ ruleName: rule.name, ...stop }), result());
        failReason = failureOf('condition', e);
        errors.push({ ruleName: rule.name, code: 'EXPRESSION_FAILED', message: failReason });
      }
      if (trace) {
        const t: RuleTrace = {
          ruleName: rule.name,
          matched: failReason === null,
          failReason,
          durationMs: now() - started,
        };
        if (produced) t.outputs = produced;
        traces.push(t);
      }
    }
    return result();
  }

  /** Merges a matched rule's outputs; returns what the rule produced (for its trace) when traces are on. */
  private apply(
    rule: CompiledRule,
    scope: EvaluationScope,
    outputs: Facts,
    errors: RuleSetEvaluationError[],
    trace: boolean,
  ): Facts | undefined {
    const constants = rule.constants;
    if (constants !== null) for (const key of rule.constantKeys) outputs[key] = constants[key];
    if (rule.computed.length === 0) return trace ? (constants ?? undefined) : undefined;
    const produced: Facts | undefined = trace ? { ...constants } : undefined;
    for (const { key, evaluate } of rule.computed) {
      let value: unknown = null;
      try {
        value = evaluate(scope);
      } catch (e) {
        if (budgetError(e)) throw e; // stops the evaluation (the rule loop reports it)
        errors.push({
          ruleName: rule.name,
          code: 'EXPRESSION_FAILED',
          message: failureOf(`output '${key}'`, e),
        });
      }
      outputs[key] = value;
      if (produced) produced[key] = value;
    }
    return produced;
  }
}
