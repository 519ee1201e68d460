import type { RuleSetShapeName } from '../rulesets/types';
import { isObject } from './checks';

/** The accepted rule set shapes (the spec's `rules` form and legacy rules-engine JSON share one family). */
export type RuleSetShape = RuleSetShapeName;

export const RULE_SET_SHAPES: readonly RuleSetShape[] = ['rules', 'legacy', 'code-based', 'flow-graph'];

/**
 * Shape detection: an explicit `type` wins (`rules`, `legacy`, `code-based`, `flow-graph`); otherwise
 * `WorkflowName`/`Rules` → legacy rules-engine JSON, `nodes` → flow graph, `rules` whose items carry
 * `code` and no `condition` → code-based, else the spec's `rules` form.
 */
export function detectShape(doc: unknown): RuleSetShape | null {
  if (!isObject(doc)) return null;
  if (typeof doc.type === 'string')
    return RULE_SET_SHAPES.includes(doc.type as RuleSetShape) ? (doc.type as RuleSetShape) : null;
  if ('Rules' in doc || 'WorkflowName' in doc) return 'legacy';
  if ('nodes' in doc) return 'flow-graph';
  if (
    Array.isArray(doc.rules) &&
    doc.rules.length > 0 &&
    doc.rules.every((r) => isObject(r) && 'code' in r && !('condition' in r))
  )
    return 'code-based';
  if ('rules' in doc) return 'rules';
  return null;
}
