import type { EvaluationContext } from '@arbiter/feel';
import type { DecisionTableDefinition } from '../types';

/**
 * One interface for the three rule set shapes (spec 1: rules form / legacy rules-engine JSON,
 * code-based, flow graph): `compileRuleSet(document, context)` → `CompiledRuleSet`, whose
 * `evaluate(facts, options)` gives `{ outputs, traces, errors, rulesMatched }`.
 *
 * Compilation does all parsing once (FEEL, C#-style lambdas, scripts, templates, tables); evaluation
 * only runs closures. Anything that reaches outside the process (a stored decision table, another
 * workflow, a connector) comes in through the ports of `RuleSetCompileContext`, so the engine stays pure.
 */

export type RuleSetShapeName = 'rules' | 'legacy' | 'code-based' | 'flow-graph';

/** Facts in and out: plain JSON-like objects. */
export type Facts = Record<string, unknown>;

export interface RuleSetEvaluationOptions {
  /**
   * false: side effects are not executed (connector nodes are skipped and traced as such). Dry-runs and
   * shadow candidates run with false. Default true.
   */
  sideEffects?: boolean;
  /** Collect per-rule / per-node traces (default true). Timings are only taken when traces are on. */
  trace?: boolean;
  /**
   * Absolute deadline (epoch ms). Evaluation stops with a `DEADLINE_EXCEEDED` error when it passes, also
   * in the middle of a FEEL expression or a decision table.
   */
  deadline?: number;
  /**
   * FEEL steps (loop iterations, user-function calls, …) the whole evaluation may take, every rule, node
   * and table together (default: the FEEL library's STEP_BUDGET). Past it the evaluation stops with an
   * `EVALUATION_BUDGET_EXCEEDED` error.
   */
  maxSteps?: number;
  /**
   * The FEEL budget of the evaluation this one is part of (a sub flow shares its caller's); when set,
   * `maxSteps` and `deadline` are the caller's.
   */
  budget?: EvaluationContext;
  /** Cancels in-flight asynchronous work (connectors, sub flows). */
  signal?: AbortSignal;
  tenantId?: string;
  correlationId?: string;
  /** Sub-flow nesting depth of this evaluation (0 at the top; the engine refuses beyond `MAX_SUB_FLOW_DEPTH`). */
  depth?: number;
  /** Workflows on the current sub-flow call stack (cycle guard). */
  callStack?: readonly string[];
}

export interface RuleTrace {
  /** Rule name (rules / legacy / code-based) or node id (flow graph). */
  ruleName: string;
  /** Flow graph only: node kind. */
  kind?: string;
  matched: boolean;
  /** Why the rule did not match or failed (null when it matched). */
  failReason: string | null;
  /** true when the node or rule did not run (branch not taken, side effect suppressed). */
  skipped?: boolean;
  /** Milliseconds spent in this rule or node. */
  durationMs?: number;
  /** Facts this rule or node produced. */
  outputs?: Facts;
}

export interface RuleSetEvaluationError {
  /** Rule name or node id, when the error belongs to one. */
  ruleName?: string;
  /** Names the problem: `EXPRESSION_FAILED`, `SANDBOX_TIMEOUT`, `SANDBOX_MEMORY`, `CONNECTOR_FAILED`, `DEADLINE_EXCEEDED`, `SUB_FLOW_CYCLE`, … */
  code: string;
  message: string;
}

export interface RuleSetEvaluation {
  /** The output facts: merged outputs of the matched rules / executed nodes. */
  outputs: Facts;
  traces: RuleTrace[];
  errors: RuleSetEvaluationError[];
  /** Names of the rules that matched (flow graph: nodes that succeeded), in evaluation order. */
  rulesMatched: string[];
  /** Number of rules / nodes executed. */
  rulesExecuted: number;
  /** true when at least one side effect (connector call) really ran. */
  sideEffectsApplied: boolean;
}

export interface CompiledRuleSet {
  readonly shape: RuleSetShapeName;
  /** Rule names / node ids, in document order. */
  readonly ruleNames: readonly string[];
  evaluate(facts: Facts, options?: RuleSetEvaluationOptions): Promise<RuleSetEvaluation>;
  /**
   * The same evaluation, answered without a promise when nothing in it waits (anything but a flow graph
   * whose run reaches a node that waits: a connector, a sub flow, a stored table not fetched yet). For hot
   * paths, where a promise per call shows; it may throw where `evaluate` would reject.
   */
  evaluateNow(
    facts: Facts,
    options?: RuleSetEvaluationOptions,
  ): RuleSetEvaluation | Promise<RuleSetEvaluation>;
}

/** A stored decision table named by a flow node's `tableRef`. */
export interface DecisionTableRef {
  id?: string;
  name?: string;
  version?: number;
}

/** Calls a connector (an HTTP call or other side effect). Implemented by the host application. */
export interface ConnectorInvoker {
  invoke(
    request: {
      connector: string;
      operation?: string;
      input: Facts;
      timeoutMs: number;
      tenantId?: string;
      correlationId?: string;
    },
    signal?: AbortSignal,
  ): Promise<Facts>;
}

/** Compilation ports. Every one is optional; a document that needs a missing port fails to compile. */
export interface RuleSetCompileContext {
  /** Workflow being compiled (sub-flow cycle guard, messages). */
  workflowName?: string;
  /** Fetches a stored decision table (flow `decision-table` nodes with `tableRef`). Called at compile time. */
  resolveDecisionTable?: (ref: DecisionTableRef) => Promise<DecisionTableDefinition>;
  /** The compiled rule set another workflow runs (active version, or `version` when pinned). Called at evaluation time. */
  resolveSubFlow?: (workflowName: string, version: number | undefined) => Promise<CompiledRuleSet>;
  connectors?: ConnectorInvoker;
  /** Implementations of code-based rules (the rule library). */
  codeRules?: CodeRuleResolver;
}

export const MAX_SUB_FLOW_DEPTH = 8;

/** A code-based rule's implementation, resolved by its `code` (the rule library registers them). */
export interface CodeRuleImplementation {
  code: string;
  /** `true`/`false` (matched, no outputs), facts (matched with these outputs) or `{ matched, outputs }`. */
  evaluate(
    facts: Facts,
    parameters: Record<string, unknown>,
  ):
    | boolean
    | Facts
    | { matched: boolean; outputs?: Facts }
    | Promise<boolean | Facts | { matched: boolean; outputs?: Facts }>;
}

export interface CodeRuleResolver {
  get(code: string): CodeRuleImplementation | undefined;
  /**
   * Whether the code is known, also without an implementation in this process (a manifest-only code):
   * the validation's notion of a known code. Without it, a code is known when `get` finds it.
   */
  has?(code: string): boolean;
}
