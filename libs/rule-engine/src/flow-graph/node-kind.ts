import type { EmbeddedTable } from '../document/table-contract';
import type { Problem } from '../document/problems';
import type { RuleContractField } from '../library/contract';
import type { RuleSetCompileContext } from '../rulesets/types';
import type { NodeRunner } from './runtime';

/**
 * What a flow node kind provides. Each kind is one file in `nodes/` exporting one of these, listed once
 * in `nodes/index.ts`; the schema (`FLOW_GRAPH_SCHEMA`), the validation (`validateFlowGraph`), the
 * compiler (`compileFlowGraph`) and the catalog's flow model all read that list.
 */
export interface FlowNodeKindDefinition<Kind extends string = string> {
  readonly kind: Kind;
  /** Evaluates to a boolean and branches with `on-true` / `on-false` (never `next`). */
  readonly branching: boolean;
  /** JSON Schema (draft 2020-12) of the node's `config`, as published in `FLOW_GRAPH_SCHEMA`. */
  readonly configSchema: Readonly<Record<string, unknown>>;
  /** Pushes a problem for each bad value of `config` (`at` is `nodes[i].config`). */
  validate(
    config: Record<string, unknown>,
    at: string,
    problems: Problem[],
    context: FlowValidationContext,
  ): void;
  /**
   * The node's runner, built once from a validated node (`at` is `nodes[i]`). A failure the validation
   * cannot see (a missing port, a stored table that does not compile) throws a `FlowCompileError`.
   */
  compile(node: FlowNodeDocument, at: string, ctx: RuleSetCompileContext): NodeRunner | Promise<NodeRunner>;
  /** What the catalog derives from the node's configuration. */
  contract(config: Record<string, unknown>): FlowNodeContract;
}

export interface FlowValidationContext {
  /** The workflow that owns the document (a sub flow may not call it). */
  workflowName?: string;
}

/** A node of a validated flow-graph document, as the compiler reads it. */
export interface FlowNodeDocument {
  id: string;
  kind: string;
  config: Record<string, unknown>;
}

/** A node's contribution to the catalog (flow model, bindings, contracts). */
export interface FlowNodeContract {
  /** Code of what the node calls (a connector), looked up in the rule catalog; null otherwise. */
  ruleCode: string | null;
  /** Facts derived from the configuration (output variable, embedded table outputs). */
  derivedOutputs: RuleContractField[];
  /** Decision tables the node evaluates (`name`, or `id:<id>` for a reference by id). */
  tables: string[];
  /** Workflows the node calls. */
  subFlows: string[];
  /** Decision tables defined inside the node. */
  embeddedTables: EmbeddedTable[];
  /**
   * A sub flow: its facts are the called workflow's outputs, which only the caller of the catalog can
   * read (the child's own contract). `mapping` (`{ fact: "path.in.child.outputs" }`) names them when set;
   * null: every output of the child is merged in.
   */
  subFlowOutputs?: { workflowName: string; version?: number; mapping: Record<string, string> | null };
}

/** A contract with nothing in it, for kinds to extend. */
export function emptyContract(): FlowNodeContract {
  return { ruleCode: null, derivedOutputs: [], tables: [], subFlows: [], embeddedTables: [] };
}

export class FlowCompileError extends Error {
  readonly code = 'FLOW_COMPILE_FAILED';
  constructor(readonly problems: { path: string; message: string }[]) {
    super(`flow graph does not compile: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    this.name = 'FlowCompileError';
  }
}
