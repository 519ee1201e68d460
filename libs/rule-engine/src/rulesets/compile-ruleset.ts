import { validateRuleSetYielding, type KnownRuleCodes } from '../document/validate-ruleset';
import type { Problem } from '../document/problems';
import { compileValidFlowGraph, FlowCompileError, type FlowGraph } from '../flow-graph';
import { CodeBasedCompileError, compileCodeBased } from '../library';
import { compileLegacyWorkflow, compileRulesForm, RuleDocumentCompileError } from './index';
import type { CodeRuleResolver, CompiledRuleSet, RuleSetCompileContext, RuleSetShapeName } from './types';

/** The codes a code-based document may name: the resolver's own notion, else those it can run. */
function knownCodes(resolver: CodeRuleResolver | undefined): KnownRuleCodes {
  return { has: (code) => (resolver?.has ? resolver.has(code) : resolver?.get(code) !== undefined) };
}

/** A document the validation refuses, as the compile error of its shape (same class and code as before). */
function invalid(shape: RuleSetShapeName, problems: Problem[]): Error {
  switch (shape) {
    case 'flow-graph':
      return new FlowCompileError(problems);
    case 'code-based':
      return new CodeBasedCompileError(
        `Invalid code-based rule set: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
        problems,
        'INVALID_CODE_BASED_RULESET',
      );
    default:
      return new RuleDocumentCompileError(problems);
  }
}

/**
 * One entry point for the rule set shapes: the spec's rules form (FEEL or C#-lambda conditions), legacy
 * rules-engine JSON (Microsoft RulesEngine workflows), code-based rule sets and flow graphs. The shape is
 * the one the control plane detected and stored with the version. The document first goes through
 * `validateRuleSet` — the validation the control plane runs on save — so compile accepts exactly what
 * save accepts; a refused document rejects with every problem.
 */
export async function compileRuleSet(
  document: Record<string, unknown>,
  shape: RuleSetShapeName,
  context: RuleSetCompileContext = {},
): Promise<CompiledRuleSet> {
  const { errors } = await validateRuleSetYielding(
    document,
    context.workflowName,
    knownCodes(context.codeRules),
  );
  if (errors.length) throw invalid(shape, errors);
  switch (shape) {
    case 'rules':
      return compileRulesForm(document as never, context);
    case 'legacy':
      return compileLegacyWorkflow(document as never, context);
    case 'code-based':
      return compileCodeBased(document as never, context);
    case 'flow-graph':
      return compileValidFlowGraph(document as unknown as FlowGraph, context);
    default:
      return Promise.reject(new Error(`unknown rule set shape '${String(shape)}'`));
  }
}
