/**
 * The rule set document (spec 1): shape detection, the one validation used by save and compile, the
 * rules of a document and their diff. The flow-graph part (schema, node kinds) lives in `../flow-graph`.
 */
export { formatProblem, type Problem } from './problems';
export { RULE_SET_SHAPES, detectShape, type RuleSetShape } from './shape';
export {
  validateRuleSet,
  validateRuleSetYielding,
  type KnownRuleCodes,
  type ValidationOutcome,
} from './validate-ruleset';
export { diffRules, rulesOf, type RuleItem, type RuleSetDiff } from './rules-of';
export { dataTypeOfColumn, embeddedTable, type EmbeddedTable } from './table-contract';
