/**
 * Merge shim: the rule set document (shapes, validation, rules, diff) lives in `@arbiter/rule-engine`
 * (`src/document`). Application files being split in a parallel branch still import this path; import
 * from `@arbiter/rule-engine` instead and delete this file once they are merged.
 */
export {
  detectShape,
  diffRules,
  rulesOf,
  validateRuleSet,
  type RuleItem,
  type RuleSetDiff,
  type RuleSetShape,
  type ValidationOutcome,
} from '@arbiter/rule-engine';
