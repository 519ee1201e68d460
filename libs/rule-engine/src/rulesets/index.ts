/**
 * Rule set evaluators for the spec's rules form and legacy Microsoft RulesEngine workflows, the C#-style
 * lambda compiler they share, and the shadow diff of two versions' outputs.
 */
export * from './lambda';
export {
  RuleDocumentCompileError,
  compileRulesForm,
  compileRulesFormSync,
  type RulesExpressionLanguage,
  type RulesFormDocument,
  type RulesFormRule,
} from './rules-form';
export {
  compileLegacyWorkflow,
  compileLegacyWorkflowSync,
  type LegacyRuleResult,
  type LegacyWorkflowOutputs,
} from './legacy';
export {
  DEFAULT_NUMERIC_TOLERANCE,
  countLeafFields,
  countOutputFields,
  deepEqual,
  diffOutputs,
  type ShadowDiff,
  type ShadowDiffOptions,
  type ShadowDifference,
  type ShadowSeverity,
} from './shadow-diff';
