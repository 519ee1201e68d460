/**
 * Legacy Microsoft RulesEngine workflows (shape `legacy`):
 * `{ WorkflowName, GlobalParams?: [{ Name, Expression }], Rules: [{ RuleName, Expression, SuccessEvent,
 * ErrorMessage, RuleExpressionType, Operator, Rules, LocalParams, Actions, Enabled }] }`.
 * Every expression is a C#-style lambda compiled once with our own parser (./lambda).
 *
 * Evaluation, as RulesEngine's `ExecuteAllRulesAsync`:
 * - GlobalParams are evaluated first, in order; each sees the facts and the earlier params. A rule's
 *   LocalParams are evaluated before it (and are visible to its nested rules). Params win over facts of the
 *   same name. A param whose expression fails records an EXPRESSION_FAILED error (ruleName
 *   `GlobalParams.<Name>` / `<rule path>.LocalParams.<Name>`), and every rule that reads it fails with
 *   that message (RulesEngine fails those rules with an exception message).
 * - Every enabled rule (`Enabled !== false`) is evaluated, in document order. A rule with nested `Rules`
 *   combines its enabled children with `Operator`: And/AndAlso → all succeed, Or/OrElse → one succeeds;
 *   every child is evaluated (RulesEngine's default NestedRuleExecutionMode.All), none → failure.
 *   Otherwise `Expression` must evaluate to `true` for success; `false` is a plain failure; an exception
 *   or a non-bool result is a failure with `exceptionMessage` and an EXPRESSION_FAILED error.
 * - `Actions.OnSuccess` / `Actions.OnFailure` named `OutputExpression` evaluate `Context.Expression`
 *   after the rule and store the value (DateTime → ISO string) as the rule's `actionOutput`.
 *
 * Outputs (the RuleResultTree list flattened to JSON):
 * ```
 * {
 *   successEvent: string | null,      // RulesEngine's OnSuccess: SuccessEvent (else RuleName) of the first
 *                                     // successful top-level rule; null when none succeeded
 *   successEvents: string[],          // the same for every successful top-level rule, in order
 *   results: {                        // every evaluated rule, nested ones as `Parent/Child`
 *     [rulePath]: {
 *       isSuccess: boolean,
 *       successEvent: string | null,  // the rule's SuccessEvent
 *       errorMessage: string | null,  // the rule's ErrorMessage when it failed, `$(expr)` placeholders filled
 *       exceptionMessage: string | null, // the runtime error when the expression threw
 *       actionOutput?: unknown        // only for rules with an OutputExpression action that ran
 *     }
 *   },
 *   actionOutputs?: { [rulePath]: unknown } // only when the workflow declares OutputExpression actions
 * }
 * ```
 * `rulesMatched`: names of the successful top-level rules. `traces`: one per evaluated rule (nested
 * rules by path; disabled rules as `skipped`). `rulesExecuted`: rules evaluated at every level.
 * `ruleNames`: every rule path in document order. A passed `deadline` or an aborted `signal` stops before
 * the next top-level rule with a DEADLINE_EXCEEDED / CANCELLED error.
 */
import { CompiledLambda, FailedParameter, LambdaSyntaxError, compileLambda, parseLambda } from './lambda';
import { toCSharpString } from './lambda/semantics';
import { RuleDocumentCompileError, errorMessage, interruption, isRecord, now } from './rules-form';
import type {
  CompiledRuleSet,
  Facts,
  RuleSetCompileContext,
  RuleSetEvaluation,
  RuleSetEvaluationError,
  RuleSetEvaluationOptions,
  RuleTrace,
} from './types';

export interface LegacyRuleResult {
  isSuccess: boolean;
  successEvent: string | null;
  errorMessage: string | null;
  exceptionMessage: string | null;
  actionOutput?: unknown;
}

export interface LegacyWorkflowOutputs {
  successEvent: string | null;
  successEvents: string[];
  results: Record<string, LegacyRuleResult>;
  actionOutputs?: Record<string, unknown>;
}

type Params = Record<string, unknown>;

interface CompiledParam {
  name: string;
  fn: CompiledLambda;
}

/** `ErrorMessage` with `$(expression)` placeholders. */
type MessageTemplate = (facts: Facts, params: Params | undefined) => string;

interface CompiledRule {
  name: string;
  path: string;
  enabled: boolean;
  expression: CompiledLambda | null;
  /** nested rules: true for And/AndAlso, false for Or/OrElse */
  all: boolean;
  children: CompiledRule[] | null;
  localParams: CompiledParam[];
  successEvent: string | null;
  errorMessage: MessageTemplate | null;
  onSuccess: CompiledLambda | null;
  onFailure: CompiledLambda | null;
}

const OPERATORS: Record<string, boolean> = { And: true, AndAlso: true, Or: false, OrElse: false };
const PLACEHOLDER = /\$\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g;

type Problems = { path: string; message: string }[];

function nonEmpty(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '';
}

class LegacyCompiler {
  readonly problems: Problems = [];
  hasActions = false;
  readonly paths: string[] = [];

  lambda(source: unknown, path: string, names: Iterable<string>): CompiledLambda | null {
    if (!nonEmpty(source)) {
      this.problems.push({ path, message: 'required (non-empty string)' });
      return null;
    }
    try {
      return compileLambda(source, names);
    } catch (e) {
      this.problems.push({ path, message: e instanceof LambdaSyntaxError ? e.message : errorMessage(e) });
      return null;
    }
  }

  params(list: unknown, path: string, inherited: string[]): { params: CompiledParam[]; names: string[] } {
    const names = inherited.slice();
    const params: CompiledParam[] = [];
    if (list === undefined || list === null) return { params, names };
    if (!Array.isArray(list)) {
      this.problems.push({ path, message: 'must be an array of { Name, Expression }' });
      return { params, names };
    }
    list.forEach((p, i) => {
      const at = `${path}[${i}]`;
      if (!isRecord(p) || !nonEmpty(p.Name)) {
        this.problems.push({ path: `${at}.Name`, message: 'required (non-empty string)' });
        return;
      }
      const fn = this.lambda(p.Expression, `${at}.Expression`, names);
      names.push(p.Name);
      if (fn) params.push({ name: p.Name, fn });
    });
    return { params, names };
  }

  action(value: unknown, path: string, names: string[]): CompiledLambda | null {
    if (value === undefined || value === null) return null;
    if (!isRecord(value)) {
      this.problems.push({ path, message: 'must be an object { Name, Context }' });
      return null;
    }
    if (value.Name !== 'OutputExpression') {
      this.problems.push({
        path: `${path}.Name`,
        message: `unsupported action '${String(value.Name)}' (only 'OutputExpression')`,
      });
      return null;
    }
    this.hasActions = true;
    const context = isRecord(value.Context) ? value.Context : {};
    return this.lambda(context.Expression, `${path}.Context.Expression`, names);
  }

  message(template: unknown, names: string[]): MessageTemplate | null {
    if (typeof template !== 'string' || template === '') return null;
    const parts: (string | CompiledLambda)[] = [];
    let last = 0;
    for (const m of template.matchAll(PLACEHOLDER)) {
      const parsed = parseLambda(m[1]);
      if (!parsed.ok) continue; // not an expression: keep the text as written
      parts.push(template.slice(last, m.index), compileLambda(m[1], names));
      last = (m.index ?? 0) + m[0].length;
    }
    if (parts.length === 0) return () => template;
    parts.push(template.slice(last));
    return (facts, params) => {
      let s = '';
      for (const part of parts) {
        if (typeof part === 'string') s += part;
        else
          try {
            s += toCSharpString(part(facts, params));
          } catch {
            s += 'null';
          }
      }
      return s;
    };
  }

  rules(list: unknown, path: string, prefix: string, names: string[]): CompiledRule[] {
    if (!Array.isArray(list) || list.length === 0) {
      this.problems.push({ path, message: 'must be a non-empty array' });
      return [];
    }
    const out: CompiledRule[] = [];
    const seen = new Set<string>();
    list.forEach((rule, i) => {
      const at = `${path}[${i}]`;
      if (!isRecord(rule)) {
        this.problems.push({ path: at, message: 'must be an object' });
        return;
      }
      if (!nonEmpty(rule.RuleName)) {
        this.problems.push({ path: `${at}.RuleName`, message: 'required (non-empty string)' });
        return;
      }
      if (seen.has(rule.RuleName))
        this.problems.push({ path: `${at}.RuleName`, message: `duplicate RuleName '${rule.RuleName}'` });
      seen.add(rule.RuleName);
      if (rule.RuleExpressionType !== undefined && rule.RuleExpressionType !== 'LambdaExpression')
        this.problems.push({
          path: `${at}.RuleExpressionType`,
          message: "only 'LambdaExpression' is supported",
        });
      const rulePath = `${prefix}${rule.RuleName}`;
      this.paths.push(rulePath);
      const local = this.params(rule.LocalParams, `${at}.LocalParams`, names);
      const nested = rule.Rules !== undefined && rule.Rules !== null;
      let expression: CompiledLambda | null = null;
      let children: CompiledRule[] | null = null;
      let all = true;
      if (nested) {
        const op = OPERATORS[rule.Operator as string];
        if (op === undefined)
          this.problems.push({
            path: `${at}.Operator`,
            message: `required with nested Rules (${Object.keys(OPERATORS).join(', ')})`,
          });
        all = op !== false;
        children = this.rules(rule.Rules, `${at}.Rules`, `${rulePath}/`, local.names);
      } else expression = this.lambda(rule.Expression, `${at}.Expression`, local.names);
      const actions = isRecord(rule.Actions) ? rule.Actions : {};
      if (rule.Actions !== undefined && rule.Actions !== null && !isRecord(rule.Actions))
        this.problems.push({
          path: `${at}.Actions`,
          message: 'must be an object { OnSuccess?, OnFailure? }',
        });
      out.push({
        name: rule.RuleName,
        path: rulePath,
        enabled: rule.Enabled !== false,
        expression,
        all,
        children,
        localParams: local.params,
        successEvent: nonEmpty(rule.SuccessEvent) ? rule.SuccessEvent : null,
        errorMessage: this.message(rule.ErrorMessage, local.names),
        onSuccess: this.action(actions.OnSuccess, `${at}.Actions.OnSuccess`, local.names),
        onFailure: this.action(actions.OnFailure, `${at}.Actions.OnFailure`, local.names),
      });
    });
    return out;
  }
}

/** Compiles a RulesEngine workflow (shape `legacy`). Throws RuleDocumentCompileError listing every problem. */
export async function compileLegacyWorkflow(
  doc: unknown,
  ctx: RuleSetCompileContext = {},
): Promise<CompiledRuleSet> {
  return compileLegacyWorkflowSync(doc, ctx);
}

/** Synchronous form of compileLegacyWorkflow (nothing in this shape needs a port). */
export function compileLegacyWorkflowSync(doc: unknown, _ctx: RuleSetCompileContext = {}): CompiledRuleSet {
  if (!isRecord(doc)) throw new RuleDocumentCompileError([{ path: '', message: 'must be a JSON object' }]);
  const compiler = new LegacyCompiler();
  const globals = compiler.params(doc.GlobalParams, 'GlobalParams', []);
  const rules = compiler.rules(doc.Rules, 'Rules', '', globals.names);
  if (compiler.problems.length) throw new RuleDocumentCompileError(compiler.problems);
  return new CompiledLegacyWorkflow(rules, globals.params, compiler.paths, compiler.hasActions);
}

/** State of one evaluation. */
interface Run {
  facts: Facts;
  trace: boolean;
  results: Record<string, LegacyRuleResult>;
  actionOutputs: Record<string, unknown> | undefined;
  traces: RuleTrace[];
  errors: RuleSetEvaluationError[];
  executed: number;
}

class CompiledLegacyWorkflow implements CompiledRuleSet {
  readonly shape = 'legacy' as const;
  readonly ruleNames: readonly string[];

  constructor(
    private readonly rules: CompiledRule[],
    private readonly globals: CompiledParam[],
    paths: string[],
    private readonly hasActions: boolean,
  ) {
    this.ruleNames = Object.freeze(paths.slice());
  }

  async evaluate(facts: Facts, options?: RuleSetEvaluationOptions): Promise<RuleSetEvaluation> {
    return this.evaluateSync(facts, options);
  }

  evaluateNow(facts: Facts, options?: RuleSetEvaluationOptions): RuleSetEvaluation {
    return this.evaluateSync(facts, options);
  }

  /** The evaluation itself (no await anywhere). */
  evaluateSync(input: Facts, options?: RuleSetEvaluationOptions): RuleSetEvaluation {
    const run: Run = {
      facts: isRecord(input) ? input : {},
      trace: options?.trace !== false,
      results: {},
      actionOutputs: this.hasActions ? {} : undefined,
      traces: [],
      errors: [],
      executed: 0,
    };
    const params = this.globals.length
      ? this.evaluateParams(this.globals, run, undefined, 'GlobalParams')
      : undefined;
    const watch = options !== undefined && (options.deadline !== undefined || options.signal !== undefined);
    const rulesMatched: string[] = [];
    const successEvents: string[] = [];
    for (const rule of this.rules) {
      if (watch) {
        const stop = interruption(options);
        if (stop) {
          run.errors.push(stop);
          break;
        }
      }
      const result = this.evaluateRule(rule, run, params);
      if (result?.isSuccess) {
        rulesMatched.push(rule.name);
        successEvents.push(rule.successEvent ?? rule.name);
      }
    }
    const outputs: LegacyWorkflowOutputs = {
      successEvent: successEvents.length ? successEvents[0] : null,
      successEvents,
      results: run.results,
    };
    if (run.actionOutputs) outputs.actionOutputs = run.actionOutputs;
    return {
      outputs: outputs as unknown as Facts,
      traces: run.traces,
      errors: run.errors,
      rulesMatched,
      rulesExecuted: run.executed,
      sideEffectsApplied: false,
    };
  }

  private evaluateParams(
    list: CompiledParam[],
    run: Run,
    inherited: Params | undefined,
    where: string,
  ): Params {
    const params: Params = inherited ? { ...inherited } : {};
    for (const { name, fn } of list) {
      try {
        params[name] = fn(run.facts, params);
      } catch (e) {
        const message = errorMessage(e);
        params[name] = new FailedParameter(name, message);
        run.errors.push({ ruleName: `${where}.${name}`, code: 'EXPRESSION_FAILED', message });
      }
    }
    return params;
  }

  /** Evaluates one rule (and its nested rules); null when the rule is disabled. */
  private evaluateRule(rule: CompiledRule, run: Run, inherited: Params | undefined): LegacyRuleResult | null {
    if (!rule.enabled) {
      if (run.trace)
        run.traces.push({ ruleName: rule.path, matched: false, failReason: 'disabled', skipped: true });
      return null;
    }
    const started = run.trace ? now() : 0;
    run.executed++;
    // the parent's result and trace come before its children's (insertion order of the JSON)
    const result: LegacyRuleResult = {
      isSuccess: false,
      successEvent: rule.successEvent,
      errorMessage: null,
      exceptionMessage: null,
    };
    run.results[rule.path] = result;
    const t: RuleTrace | null = run.trace ? { ruleName: rule.path, matched: false, failReason: null } : null;
    if (t) run.traces.push(t);
    const params = rule.localParams.length
      ? this.evaluateParams(rule.localParams, run, inherited, `${rule.path}.LocalParams`)
      : inherited;
    let isSuccess = false;
    let exceptionMessage: string | null = null;
    if (rule.children) {
      let any = false;
      let every = true;
      let count = 0;
      for (const child of rule.children) {
        const r = this.evaluateRule(child, run, params);
        if (!r) continue;
        count++;
        if (r.isSuccess) any = true;
        else every = false;
      }
      isSuccess = count > 0 && (rule.all ? every : any);
    } else {
      try {
        const v = (rule.expression as CompiledLambda)(run.facts, params);
        if (typeof v === 'boolean') isSuccess = v;
        else exceptionMessage = `expression must evaluate to a bool, got ${v === null ? 'null' : typeof v}`;
      } catch (e) {
        exceptionMessage = errorMessage(e);
      }
      if (exceptionMessage !== null)
        run.errors.push({ ruleName: rule.path, code: 'EXPRESSION_FAILED', message: exceptionMessage });
    }
    result.isSuccess = isSuccess;
    result.exceptionMessage = exceptionMessage;
    if (!isSuccess && rule.errorMessage) result.errorMessage = rule.errorMessage(run.facts, params);
    const action = isSuccess ? rule.onSuccess : rule.onFailure;
    if (action) {
      let output: unknown = null;
      try {
        const v = action(run.facts, params);
        output = v instanceof Date ? v.toISOString() : v;
      } catch (e) {
        run.errors.push({
          ruleName: rule.path,
          code: 'EXPRESSION_FAILED',
          message: `action ${isSuccess ? 'OnSuccess' : 'OnFailure'}: ${errorMessage(e)}`,
        });
      }
      result.actionOutput = output;
      (run.actionOutputs as Record<string, unknown>)[rule.path] = output;
    }
    if (t) {
      t.matched = isSuccess;
      t.failReason = isSuccess
        ? null
        : (exceptionMessage ??
          result.errorMessage ??
          (rule.children
            ? `nested rules failed (${rule.all ? 'all' : 'one'} must succeed)`
            : 'expression is false'));
      t.durationMs = now() - started;
      if (action) t.outputs = { actionOutput: result.actionOutput };
    }
    return result;
  }
}
