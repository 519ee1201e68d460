import { compileFlowGraph } from '../flow-graph';
import { compileCodeBased } from '../library';
import { compileLegacyWorkflow, compileRulesForm } from './index';
import type { CompiledRuleSet, RuleSetCompileContext, RuleSetShapeName } from './types';

/**
 * One entry point for the three rule set shapes: the spec's rules form (FEEL or C#-lambda conditions),
 * legacy rules-engine JSON (Microsoft RulesEngine workflows), code-based rule sets and flow graphs.
 * The shape is the one the control plane detected and stored with the version.
 */
export function compileRuleSet(
  document: Record<string, unknown>,
  shape: RuleSetShapeName,
  context: RuleSetCompileContext = {},
): Promise<CompiledRuleSet> {
  switch (shape) {
    case 'rules':
      return compileRulesForm(document as never, context);
    case 'legacy':
      return compileLegacyWorkflow(document as never, context);
    case 'code-based':
      return compileCodeBased(document as never, context);
    case 'flow-graph':
      return compileFlowGraph(document, context);
    default:
      return Promise.reject(new Error(`unknown rule set shape '${String(shape)}'`));
  }
}
