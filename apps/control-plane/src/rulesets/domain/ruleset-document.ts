import { parseLambda, validateDecisionTable } from '@arbiter/rule-engine';
import { canonicalJson } from './canonical-json';
import { checkFeel, FlowGraph, validateFlowGraph } from './flow-contract';
import { Problem } from './problems';
import { RuleRegistry } from './rule-registry';

/** The three accepted rule set shapes (the spec's `rules` form and legacy rules-engine JSON share one family). */
export type RuleSetShape = 'rules' | 'legacy' | 'code-based' | 'flow-graph';

/** A rule as every shape exposes it (used by version documents and the diff). */
export interface RuleItem {
  id: string;
  name: string;
  [field: string]: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.trim().length > 0;
}

const SHAPES: RuleSetShape[] = ['rules', 'legacy', 'code-based', 'flow-graph'];

/**
 * Shape detection: an explicit `type` wins (`rules`, `legacy`, `code-based`, `flow-graph`); otherwise
 * `WorkflowName`/`Rules` → legacy rules-engine JSON, `nodes` → flow graph, `rules` whose items carry
 * `code` and no `condition` → code-based, else the spec's `rules` form.
 */
export function detectShape(doc: unknown): RuleSetShape | null {
  if (!isObject(doc)) return null;
  if (typeof doc.type === 'string')
    return SHAPES.includes(doc.type as RuleSetShape) ? (doc.type as RuleSetShape) : null;
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

export interface ValidationOutcome {
  valid: boolean;
  shape: RuleSetShape | null;
  errors: Problem[];
  warnings: Problem[];
}

/**
 * A C#-style lambda (RulesEngine `Expression`, rules form with `expressionLanguage: 'lambda'`) must parse
 * with the engine's own lambda parser: an unsupported construct, unknown method or syntax error is a
 * problem naming it and its column (`unsupported construct 'new' at column 5`).
 */
function checkLambda(path: string, source: string, problems: Problem[]): void {
  const parsed = parseLambda(source);
  if (!parsed.ok) problems.push({ path, message: parsed.error.message });
}

/** Output values that are strings starting with `=` are expressions in the document's language. */
function checkOutputExpressions(
  path: string,
  output: Record<string, unknown>,
  feel: boolean,
  problems: Problem[],
): void {
  for (const [key, value] of Object.entries(output)) {
    if (typeof value !== 'string' || !value.startsWith('=')) continue;
    if (feel) checkFeel(`${path}.${key}`, value.slice(1), problems);
    else checkLambda(`${path}.${key}`, value.slice(1), problems);
  }
}

/** Name/Expression parameter lists (GlobalParams, LocalParams): every expression a lambda. */
function validateLambdaParams(value: unknown, path: string, problems: Problem[]): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    problems.push({ path, message: 'must be an array' });
    return;
  }
  value.forEach((p, i) => {
    if (!isObject(p) || !nonEmptyString(p.Name))
      problems.push({ path: `${path}[${i}].Name`, message: 'required' });
    else if (!nonEmptyString(p.Expression))
      problems.push({ path: `${path}[${i}].Expression`, message: 'required' });
    else checkLambda(`${path}[${i}].Expression`, p.Expression, problems);
  });
}

/** `Actions.OnSuccess` / `Actions.OnFailure`: only `OutputExpression` with a lambda `Context.Expression`. */
function validateLegacyActions(value: unknown, path: string, problems: Problem[]): void {
  if (value === undefined || value === null) return;
  if (!isObject(value)) {
    problems.push({ path, message: 'must be an object { OnSuccess?, OnFailure? }' });
    return;
  }
  for (const when of ['OnSuccess', 'OnFailure']) {
    const action = value[when];
    const at = `${path}.${when}`;
    if (action === undefined || action === null) continue;
    if (!isObject(action)) problems.push({ path: at, message: 'must be an object { Name, Context }' });
    else if (action.Name !== 'OutputExpression')
      problems.push({
        path: `${at}.Name`,
        message: `unsupported action '${String(action.Name)}' (only 'OutputExpression')`,
      });
    else {
      const expression = isObject(action.Context) ? action.Context.Expression : undefined;
      if (!nonEmptyString(expression))
        problems.push({ path: `${at}.Context.Expression`, message: 'required (non-empty string)' });
      else checkLambda(`${at}.Context.Expression`, expression, problems);
    }
  }
}

function validateDecisionTables(value: unknown, path: string, problems: Problem[]): void {
  if (value === undefined || value === null) return;
  if (!Array.isArray(value)) {
    problems.push({ path, message: 'must be an array of decision tables' });
    return;
  }
  const names = new Set<string>();
  value.forEach((table, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(table)) {
      problems.push({ path: at, message: 'must be an object' });
      return;
    }
    if (nonEmptyString(table.name)) {
      if (names.has(table.name))
        problems.push({ path: `${at}.name`, message: `duplicate table name '${table.name}'` });
      names.add(table.name);
    }
    for (const e of validateDecisionTable(table).errors)
      problems.push({
        path: `${at}${e.rowId ? `.rows[${e.rowId}]` : ''}${e.column ? `.${e.column}` : ''}`,
        message: e.message,
      });
  });
}

function validateRulesForm(doc: Record<string, unknown>, problems: Problem[]): void {
  if (!Array.isArray(doc.rules)) {
    problems.push({ path: 'rules', message: 'must be an array' });
    return;
  }
  if (doc.rules.length === 0) problems.push({ path: 'rules', message: 'must contain at least one rule' });
  // The spec's rules form speaks FEEL; C#-style lambdas only when the document says so.
  const feel = doc.expressionLanguage !== 'lambda';
  if (doc.expressionLanguage !== undefined && !['feel', 'lambda'].includes(doc.expressionLanguage as string))
    problems.push({ path: 'expressionLanguage', message: "must be 'feel' or 'lambda'" });
  const ids = new Map<string, number>();
  doc.rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!isObject(rule)) {
      problems.push({ path: at, message: 'must be an object' });
      return;
    }
    if (!nonEmptyString(rule.id)) problems.push({ path: `${at}.id`, message: 'required (non-empty string)' });
    else if (ids.has(rule.id))
      problems.push({
        path: `${at}.id`,
        message: `duplicate rule id '${rule.id}' (also rules[${ids.get(rule.id)}])`,
      });
    else ids.set(rule.id, i);
    if (!nonEmptyString(rule.name))
      problems.push({ path: `${at}.name`, message: 'required (non-empty string)' });
    if (!nonEmptyString(rule.condition))
      problems.push({ path: `${at}.condition`, message: 'required (non-empty string)' });
    else if (feel) checkFeel(`${at}.condition`, rule.condition, problems);
    else checkLambda(`${at}.condition`, rule.condition, problems);
    if (rule.output !== undefined && !isObject(rule.output))
      problems.push({ path: `${at}.output`, message: 'must be an object of output facts' });
    else if (rule.output !== undefined) checkOutputExpressions(`${at}.output`, rule.output, feel, problems);
  });
  validateDecisionTables(doc.decisionTables, 'decisionTables', problems);
}

const OPERATORS = ['And', 'AndAlso', 'Or', 'OrElse'];

function validateLegacyRules(rules: unknown, path: string, problems: Problem[]): void {
  if (!Array.isArray(rules) || rules.length === 0) {
    problems.push({ path, message: 'must be a non-empty array' });
    return;
  }
  const names = new Set<string>();
  rules.forEach((rule, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(rule)) {
      problems.push({ path: at, message: 'must be an object' });
      return;
    }
    if (!nonEmptyString(rule.RuleName))
      problems.push({ path: `${at}.RuleName`, message: 'required (non-empty string)' });
    else if (names.has(rule.RuleName))
      problems.push({ path: `${at}.RuleName`, message: `duplicate RuleName '${rule.RuleName}'` });
    else names.add(rule.RuleName);
    if (rule.RuleExpressionType !== undefined && rule.RuleExpressionType !== 'LambdaExpression')
      problems.push({ path: `${at}.RuleExpressionType`, message: "only 'LambdaExpression' is supported" });
    const nested = rule.Rules !== undefined && rule.Rules !== null;
    if (nested) {
      if (!OPERATORS.includes(rule.Operator as string))
        problems.push({
          path: `${at}.Operator`,
          message: `required with nested Rules (${OPERATORS.join(', ')})`,
        });
      validateLegacyRules(rule.Rules, `${at}.Rules`, problems);
    } else if (!nonEmptyString(rule.Expression)) {
      problems.push({
        path: `${at}.Expression`,
        message: 'required (a rule without nested Rules needs an Expression)',
      });
    } else {
      checkLambda(`${at}.Expression`, rule.Expression, problems);
    }
    validateLambdaParams(rule.LocalParams, `${at}.LocalParams`, problems);
    validateLegacyActions(rule.Actions, `${at}.Actions`, problems);
    if (rule.Enabled !== undefined && typeof rule.Enabled !== 'boolean')
      problems.push({ path: `${at}.Enabled`, message: 'must be a boolean' });
  });
}

function validateLegacy(doc: Record<string, unknown>, workflowName: string, problems: Problem[]): void {
  if (doc.WorkflowName !== undefined && doc.WorkflowName !== workflowName)
    problems.push({
      path: 'WorkflowName',
      message: `'${String(doc.WorkflowName)}' differs from the workflow '${workflowName}' in the path`,
    });
  if (doc.GlobalParams !== undefined) validateLambdaParams(doc.GlobalParams, 'GlobalParams', problems);
  validateLegacyRules(doc.Rules, 'Rules', problems);
}

function validateCodeBased(doc: Record<string, unknown>, registry: RuleRegistry, problems: Problem[]): void {
  if (!Array.isArray(doc.rules) || doc.rules.length === 0) {
    problems.push({ path: 'rules', message: 'must be a non-empty array of { code, parameters? }' });
    return;
  }
  const ids = new Set<string>();
  doc.rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!isObject(rule)) {
      problems.push({ path: at, message: 'must be an object' });
      return;
    }
    if (!nonEmptyString(rule.code))
      problems.push({ path: `${at}.code`, message: 'required (non-empty string)' });
    else if (!registry.has(rule.code))
      problems.push({ path: `${at}.code`, message: `unknown rule code '${rule.code}'` });
    const id = nonEmptyString(rule.id) ? rule.id : (rule.code as string);
    if (typeof id === 'string') {
      if (ids.has(id))
        problems.push({
          path: `${at}.id`,
          message: `duplicate rule id '${id}' (give each use of a code its own id)`,
        });
      ids.add(id);
    }
    if (rule.parameters !== undefined && !isObject(rule.parameters))
      problems.push({ path: `${at}.parameters`, message: 'must be an object' });
    if (rule.enabled !== undefined && typeof rule.enabled !== 'boolean')
      problems.push({ path: `${at}.enabled`, message: 'must be a boolean' });
  });
}

/** Validates a rule set document of any shape; never throws. */
export function validateRuleSet(
  doc: unknown,
  workflowName: string,
  registry: RuleRegistry,
): ValidationOutcome {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  if (!isObject(doc))
    return { valid: false, shape: null, errors: [{ path: '', message: 'must be a JSON object' }], warnings };
  const shape = detectShape(doc);
  if (!shape) {
    const message =
      typeof doc.type === 'string'
        ? `unknown rule set type '${doc.type}' (expected one of ${SHAPES.join(', ')})`
        : 'not a rule set: expected rules (rules form or code-based), Rules (legacy rules-engine JSON) or nodes (flow graph)';
    return {
      valid: false,
      shape: null,
      errors: [{ path: typeof doc.type === 'string' ? 'type' : '', message }],
      warnings,
    };
  }
  switch (shape) {
    case 'rules':
      validateRulesForm(doc, errors);
      break;
    case 'legacy':
      validateLegacy(doc, workflowName, errors);
      break;
    case 'code-based':
      validateCodeBased(doc, registry, errors);
      break;
    case 'flow-graph':
      errors.push(...validateFlowGraph(doc, workflowName));
      break;
  }
  return { valid: errors.length === 0, shape, errors, warnings };
}

function flattenLegacy(rules: unknown[], prefix: string, out: RuleItem[]): void {
  for (const rule of rules) {
    if (!isObject(rule)) continue;
    const id = `${prefix}${String(rule.RuleName)}`;
    const { RuleName, Rules, ...rest } = rule;
    out.push({ id, name: String(RuleName), ...rest });
    if (Array.isArray(Rules)) flattenLegacy(Rules, `${id}/`, out);
  }
}

/** The rules of a (valid) document as `{ id, name, …fields }`, for version documents and the diff. */
export function rulesOf(doc: Record<string, unknown>, shape: RuleSetShape): RuleItem[] {
  const out: RuleItem[] = [];
  switch (shape) {
    case 'rules':
      for (const r of doc.rules as Record<string, unknown>[])
        out.push({ ...r, id: String(r.id), name: String(r.name) });
      break;
    case 'legacy':
      flattenLegacy(doc.Rules as unknown[], '', out);
      break;
    case 'code-based':
      for (const r of doc.rules as Record<string, unknown>[]) {
        const id = nonEmptyString(r.id) ? r.id : String(r.code);
        out.push({ ...r, id, name: nonEmptyString(r.name) ? r.name : String(r.code) });
      }
      break;
    case 'flow-graph':
      for (const n of (doc as unknown as FlowGraph).nodes) out.push({ ...n, id: n.id, name: n.name ?? n.id });
      break;
  }
  if (Array.isArray(doc.decisionTables))
    for (const t of doc.decisionTables as Record<string, unknown>[])
      out.push({ id: `decisionTable:${String(t.name)}`, name: String(t.name), table: t });
  return out;
}

export interface RuleSetDiff {
  fromVersion: number;
  toVersion: number;
  changes: {
    added: { id: string; name: string }[];
    modified: { id: string; name: string; fieldChanges: Record<string, { old: unknown; new: unknown }> }[];
    removed: { id: string; name: string }[];
  };
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** Rule-level diff between two versions (by rule id), field by field. */
export function diffRules(
  fromVersion: number,
  from: RuleItem[],
  toVersion: number,
  to: RuleItem[],
): RuleSetDiff {
  const before = new Map(from.map((r) => [r.id, r]));
  const after = new Map(to.map((r) => [r.id, r]));
  const added = to.filter((r) => !before.has(r.id)).map((r) => ({ id: r.id, name: r.name }));
  const removed = from.filter((r) => !after.has(r.id)).map((r) => ({ id: r.id, name: r.name }));
  const modified: RuleSetDiff['changes']['modified'] = [];
  for (const r of to) {
    const old = before.get(r.id);
    if (!old) continue;
    const fieldChanges: Record<string, { old: unknown; new: unknown }> = {};
    for (const field of new Set([...Object.keys(old), ...Object.keys(r)])) {
      if (field === 'id') continue;
      if (!same(old[field], r[field]))
        fieldChanges[field] = { old: old[field] ?? null, new: r[field] ?? null };
    }
    if (Object.keys(fieldChanges).length) modified.push({ id: r.id, name: r.name, fieldChanges });
  }
  return { fromVersion, toVersion, changes: { added, modified, removed } };
}
