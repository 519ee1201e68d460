import { Scope, enterEvaluation, leaveEvaluation } from '@arbiter/feel';
import { budgetError, evaluationBudget } from '../rulesets/rules-form';
import type {
  CompiledRuleSet,
  Facts,
  RuleSetCompileContext,
  RuleSetEvaluation,
  RuleSetEvaluationOptions,
  RuleTrace,
} from '../rulesets/types';
import { validateFlowGraph, type FlowGraph } from './contract';
import { FlowCompileError } from './node-kind';
import { flowNodeKind } from './nodes';
import { emitAll, errorOutcome, type NodeRunner, type Outcome, type RunState } from './runtime';

/**
 * Flow-graph rule sets (the control plane's `flow-graph` document, published at
 * `GET /api/v1/rule-flow/contract`), compiled once into closures.
 *
 * Semantics:
 * - The working facts are the input plus every fact produced by a node so far; `outputs` are only the
 *   produced facts. FEEL sees the working facts by name, and `input` / `facts` as the original input.
 * - Each node kind (what its `config` holds, how it runs, what it produces) is one file in `nodes/`,
 *   listed in `nodes/index.ts`; conditions (`condition`, `javascript-condition`) must give a boolean.
 * - Edges: success → `next` (conditions: `on-true` / `on-false`); failure → `on-error`; `always` fires
 *   after the node whatever happened and never halts. A failure without `on-error` is recorded in
 *   `errors` (and ends that branch unless an `always` edge continues it). A node runs at most once
 *   (first arrival), breadth first from `start` (default: the first node).
 * - The plain path is synchronous: only sub flows and connectors make the evaluation wait.
 * - One FEEL step budget and the deadline bound the whole run (sub flows included): a node that runs out
 *   of either ends the run with an `EVALUATION_BUDGET_EXCEEDED` / `DEADLINE_EXCEEDED` error, whatever
 *   its edges.
 */

interface CompiledNode {
  id: string;
  kind: string;
  run: NodeRunner;
  next: number[];
  onTrue: number[];
  onFalse: number[];
  onError: number[];
  always: number[];
}

/**
 * A shallow copy of the input that later writes extend. Not `{ ...input }`: V8 (Node 20) gives a spread
 * clone a map that every added property then transitions slowly (≈ 10 µs for six writes, measured).
 */
function copyFacts(input: Facts): Facts {
  const copy: Facts = {};
  for (const key in input) if (Object.prototype.hasOwnProperty.call(input, key)) copy[key] = input[key];
  return copy;
}

/** Queues each target not reached before: a node runs at most once, on its first arrival. */
function enqueue(targets: readonly number[], queue: number[], visited: Uint8Array): void {
  for (const t of targets) {
    if (visited[t]) continue;
    visited[t] = 1;
    queue.push(t);
  }
}

class CompiledFlowGraph implements CompiledRuleSet {
  readonly shape = 'flow-graph' as const;
  readonly ruleNames: readonly string[];

  constructor(
    private readonly nodes: CompiledNode[],
    private readonly start: number,
  ) {
    this.ruleNames = nodes.map((n) => n.id);
  }

  evaluate(facts: Facts, options: RuleSetEvaluationOptions = {}): Promise<RuleSetEvaluation> {
    try {
      return Promise.resolve(this.run(facts, options));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  evaluateNow(
    facts: Facts,
    options: RuleSetEvaluationOptions = {},
  ): RuleSetEvaluation | Promise<RuleSetEvaluation> {
    return this.run(facts, options);
  }

  private run(
    input: Facts,
    options: RuleSetEvaluationOptions,
  ): RuleSetEvaluation | Promise<RuleSetEvaluation> {
    const view = copyFacts(input);
    const produced: Facts = {};
    const state: RunState = {
      emitted: null,
      input,
      view,
      produced,
      feel: new Scope(view, new Scope({ input, facts: input }, null)),
      options,
      budget: evaluationBudget(options),
    };
    const result: RuleSetEvaluation = {
      outputs: produced,
      traces: [],
      errors: [],
      rulesMatched: [],
      rulesExecuted: 0,
      sideEffectsApplied: false,
    };
    const visited = new Uint8Array(this.nodes.length);
    const queue = [this.start];
    visited[this.start] = 1;
    return this.drain(state, result, queue, 0, visited);
  }

  private drain(
    state: RunState,
    result: RuleSetEvaluation,
    queue: number[],
    head: number,
    visited: Uint8Array,
  ): RuleSetEvaluation | Promise<RuleSetEvaluation> {
    const tracing = state.options.trace !== false;
    const deadline = state.options.deadline;
    while (head < queue.length) {
      if (deadline !== undefined && Date.now() > deadline) {
        result.errors.push({ code: 'DEADLINE_EXCEEDED', message: 'the evaluation ran past its deadline' });
        return result;
      }
      if (state.options.signal?.aborted) {
        result.errors.push({ code: 'CANCELLED', message: 'the evaluation was cancelled' });
        return result;
      }
      const index = queue[head++];
      const node = this.nodes[index];
      const started = tracing ? performance.now() : 0;
      if (tracing) state.emitted = {};
      let outcome: Outcome | Promise<Outcome>;
      const outer = enterEvaluation(state.budget);
      try {
        outcome = node.run(state);
      } catch (error) {
        const stop = budgetError(error);
        if (stop) {
          result.errors.push({ ruleName: node.id, ...stop });
          return result;
        }
        outcome = errorOutcome(error, 'NODE_FAILED');
      } finally {
        leaveEvaluation(outer);
      }
      if (outcome instanceof Promise) {
        return outcome.then(
          (o) => {
            this.after(node, o, state, result, queue, visited, tracing, started);
            return this.drain(state, result, queue, head, visited);
          },
          (error) => {
            this.after(
              node,
              errorOutcome(error, 'NODE_FAILED'),
              state,
              result,
              queue,
              visited,
              tracing,
              started,
            );
            return this.drain(state, result, queue, head, visited);
          },
        );
      }
      this.after(node, outcome, state, result, queue, visited, tracing, started);
    }
    return result;
  }

  private after(
    node: CompiledNode,
    outcome: Outcome,
    state: RunState,
    result: RuleSetEvaluation,
    queue: number[],
    visited: Uint8Array,
    tracing: boolean,
    started: number,
  ) {
    let targets: number[];
    let trace: RuleTrace | undefined;
    if (outcome.ok) {
      if (outcome.skipped === undefined) result.rulesExecuted++;
      if (outcome.outputs) emitAll(state, outcome.outputs);
      if (outcome.sideEffect) result.sideEffectsApplied = true;
      const matched = outcome.branch !== false && outcome.skipped === undefined;
      if (matched) result.rulesMatched.push(node.id);
      targets = outcome.branch === undefined ? node.next : outcome.branch ? node.onTrue : node.onFalse;
      if (tracing)
        trace = {
          ruleName: node.id,
          kind: node.kind,
          matched,
          failReason: outcome.skipped ?? (outcome.branch === false ? 'condition was false' : null),
          ...(outcome.skipped !== undefined ? { skipped: true } : {}),
          ...(state.emitted && Object.keys(state.emitted).length ? { outputs: state.emitted } : {}),
        };
    } else {
      result.rulesExecuted++;
      if (outcome.code === 'EVALUATION_BUDGET_EXCEEDED' || outcome.code === 'DEADLINE_EXCEEDED') {
        // the run's budget or time is spent: nothing after this node can run
        result.errors.push({ ruleName: node.id, code: outcome.code, message: outcome.message });
        queue.length = 0;
        return;
      }
      targets = node.onError;
      if (node.onError.length === 0)
        result.errors.push({ ruleName: node.id, code: outcome.code, message: outcome.message });
      if (tracing)
        trace = { ruleName: node.id, kind: node.kind, matched: false, failReason: outcome.message };
    }
    if (trace) {
      trace.durationMs = Math.round((performance.now() - started) * 1000) / 1000;
      result.traces.push(trace);
    }
    enqueue(targets, queue, visited);
    enqueue(node.always, queue, visited);
  }
}

/**
 * Compiles a flow-graph document (shape `flow-graph`); stored tables are fetched through the context. The
 * document goes through `validateFlowGraph` first — the validation the control plane runs on save — and
 * a document it refuses throws a `FlowCompileError` with every problem.
 */
export async function compileFlowGraph(
  doc: unknown,
  ctx: RuleSetCompileContext = {},
): Promise<CompiledRuleSet> {
  const problems = validateFlowGraph(doc, ctx.workflowName);
  if (problems.length) throw new FlowCompileError(problems);
  return compileValidFlowGraph(doc as FlowGraph, ctx);
}

/**
 * Compiles a document `validateFlowGraph` accepted (`compileRuleSet` validates every shape once, then
 * calls this): each node kind compiles its node, edges become node indexes.
 */
export async function compileValidFlowGraph(
  flow: FlowGraph,
  ctx: RuleSetCompileContext = {},
): Promise<CompiledRuleSet> {
  const index = new Map(flow.nodes.map((n, i) => [n.id, i]));
  const runners = await Promise.all(
    flow.nodes.map((n, i) => flowNodeKind(n.kind)!.compile(n, `nodes[${i}]`, ctx)),
  );
  const compiled: CompiledNode[] = flow.nodes.map((n, i) => {
    const byKind = (kind: string) =>
      (n.edges ?? []).filter((e) => e.kind === kind).map((e) => index.get(e.target)!);
    return {
      id: n.id,
      kind: n.kind,
      run: runners[i],
      next: byKind('next'),
      onTrue: byKind('on-true'),
      onFalse: byKind('on-false'),
      onError: byKind('on-error'),
      always: byKind('always'),
    };
  });
  return new CompiledFlowGraph(compiled, flow.start === undefined ? 0 : index.get(flow.start)!);
}
