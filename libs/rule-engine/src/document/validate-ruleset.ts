import { validateFlowGraph } from '../flow-graph/contract';
import { checkDecisionTable, checkFeel, checkLambda, isObject, nonEmptyString } from './checks';
import type { Problem } from './problems';
import { forEachYielding } from '../yielding';
import { detectShape, RULE_SET_SHAPES, RuleSetShape } from './shape';

/**
 * The one validation of a rule set document, whatever its shape: the control plane runs it before a
 * save, a dry-run or a validate call, and `compileRuleSet` runs it before compiling, so a document is
 * accepted or refused by the same rules in both places. Every problem is reported (not only the first),
 * each with the JSON path of the offending value.
 */

/** The rule codes a `code-based` rule set may name (the control plane's rule registry). */
export interface KnownRuleCodes {
  has(code: string): boolean;
}

export interface ValidationOutcome {
  valid: boolean;
  shape: RuleSetShape | null;
  errors: Problem[];
  warnings: Problem[];
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
    checkDecisionTable(at, table, problems);
  });
}

/**
 * The fields each shape knows. One rule for every shape, as the flow graph's schema has it: a field a
 * shape does not know is refused with its path (never stored and silently ignored, where a misspelt
 * `conditon` or `ouput` would otherwise save a rule that does something else than its author meant).
 */
export const KNOWN_FIELDS = {
  rulesForm: [
    'type',
    'schemaVersion',
    'name',
    'description',
    'rules',
    'decisionTables',
    'expressionLanguage',
  ],
  rulesFormRule: ['id', 'name', 'description', 'condition', 'output'],
  codeBased: ['type', 'schemaVersion', 'name', 'description', 'rules', 'decisionTables'],
  codeBasedRule: ['id', 'code', 'name', 'description', 'parameters', 'enabled'],
  legacy: [
    'type',
    'WorkflowName',
    'WorkflowsToInject',
    'GlobalParams',
    'RuleExpressionType',
    'Rules',
    'Description',
  ],
  legacyRule: [
    'RuleName',
    'Properties',
    'Operator',
    'ErrorMessage',
    'Enabled',
    'RuleExpressionType',
    'WorkflowsToInject',
    'Rules',
    'LocalParams',
    'Expression',
    'Actions',
    'SuccessEvent',
    'ErrorType',
  ],
} as const satisfies Record<string, readonly string[]>;

function refuseUnknownFields(
  value: Record<string, unknown>,
  known: readonly string[],
  at: string,
  problems: Problem[],
): void {
  for (const key of Object.keys(value))
    if (!known.includes(key))
      problems.push({
        path: at ? `${at}.${key}` : key,
        message: `unknown field (known here: ${known.join(', ')})`,
      });
}

function validateRulesForm(doc: Record<string, unknown>, problems: Problem[]): void {
  const rules = rulesFormHeader(doc, problems);
  if (!rules) return;
  rules.forEach(rulesFormRuleCheck(doc.expressionLanguage !== 'lambda', new Map(), problems));
  validateDecisionTables(doc.decisionTables, 'decisionTables', problems);
}

/** validateRulesForm, its rules checked in slices that give the event loop back (a 10,000-rule document). */
async function validateRulesFormYielding(doc: Record<string, unknown>, problems: Problem[]): Promise<void> {
  const rules = rulesFormHeader(doc, problems);
  if (!rules) return;
  await forEachYielding(rules, rulesFormRuleCheck(doc.expressionLanguage !== 'lambda', new Map(), problems));
  validateDecisionTables(doc.decisionTables, 'decisionTables', problems);
}

/** The document-level checks of the rules form; its rules, or null when `rules` is no array. */
function rulesFormHeader(doc: Record<string, unknown>, problems: Problem[]): unknown[] | null {
  refuseUnknownFields(doc, KNOWN_FIELDS.rulesForm, '', problems);
  if (!Array.isArray(doc.rules)) {
    problems.push({ path: 'rules', message: 'must be an array' });
    return null;
  }
  if (doc.rules.length === 0) problems.push({ path: 'rules', message: 'must contain at least one rule' });
  // The spec's rules form speaks FEEL; C#-style lambdas only when the document says so.
  if (doc.expressionLanguage !== undefined && !['feel', 'lambda'].includes(doc.expressionLanguage as string))
    problems.push({ path: 'expressionLanguage', message: "must be 'feel' or 'lambda'" });
  return doc.rules;
}

/** The check of one rule of the rules form (`ids`: the ids seen so far, for duplicates). */
function rulesFormRuleCheck(feel: boolean, ids: Map<string, number>, problems: Problem[]) {
  return (rule: unknown, i: number): void => {
    const at = `rules[${i}]`;
    if (!isObject(rule)) {
      problems.push({ path: at, message: 'must be an object' });
      return;
    }
    refuseUnknownFields(rule, KNOWN_FIELDS.rulesFormRule, at, problems);
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
  };
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
    refuseUnknownFields(rule, KNOWN_FIELDS.legacyRule, at, problems);
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

function validateLegacy(
  doc: Record<string, unknown>,
  workflowName: string | undefined,
  problems: Problem[],
): void {
  if (workflowName !== undefined && doc.WorkflowName !== undefined && doc.WorkflowName !== workflowName)
    problems.push({
      path: 'WorkflowName',
      message: `'${String(doc.WorkflowName)}' differs from the workflow '${workflowName}' in the path`,
    });
  refuseUnknownFields(doc, KNOWN_FIELDS.legacy, '', problems);
  if (doc.GlobalParams !== undefined) validateLambdaParams(doc.GlobalParams, 'GlobalParams', problems);
  validateLegacyRules(doc.Rules, 'Rules', problems);
}

function validateCodeBased(
  doc: Record<string, unknown>,
  registry: KnownRuleCodes,
  problems: Problem[],
): void {
  refuseUnknownFields(doc, KNOWN_FIELDS.codeBased, '', problems);
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
    refuseUnknownFields(rule, KNOWN_FIELDS.codeBasedRule, at, problems);
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

/**
 * Validates a rule set document of any shape; never throws. `workflowName` is the workflow that owns the
 * document (a legacy `WorkflowName` must equal it, a sub flow may not call it); unknown, those checks are
 * skipped.
 */
export function validateRuleSet(
  doc: unknown,
  workflowName: string | undefined,
  registry: KnownRuleCodes,
): ValidationOutcome {
  const outcome = validateWith(doc, workflowName, registry, validateRulesForm);
  return outcome as ValidationOutcome;
}

/**
 * validateRuleSet for large documents: the rules of the rules form are checked in slices that give the
 * event loop back, so a 10,000-rule save holds no other request. Same outcome.
 */
export async function validateRuleSetYielding(
  doc: unknown,
  workflowName: string | undefined,
  registry: KnownRuleCodes,
): Promise<ValidationOutcome> {
  return validateWith(doc, workflowName, registry, validateRulesFormYielding);
}

function validateWith<R extends void | Promise<void>>(
  doc: unknown,
  workflowName: string | undefined,
  registry: KnownRuleCodes,
  rulesForm: (doc: Record<string, unknown>, problems: Problem[]) => R,
): ValidationOutcome | Promise<ValidationOutcome> {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  if (!isObject(doc))
    return { valid: false, shape: null, errors: [{ path: '', message: 'must be a JSON object' }], warnings };
  const shape = detectShape(doc);
  if (!shape) {
    const message =
      typeof doc.type === 'string'
        ? `unknown rule set type '${doc.type}' (expected one of ${RULE_SET_SHAPES.join(', ')})`
        : 'not a rule set: expected rules (rules form or code-based), Rules (legacy rules-engine JSON) or nodes (flow graph)';
    return {
      valid: false,
      shape: null,
      errors: [{ path: typeof doc.type === 'string' ? 'type' : '', message }],
      warnings,
    };
  }
  const outcome = (): ValidationOutcome => ({ valid: errors.length === 0, shape, errors, warnings });
  switch (shape) {
    case 'rules': {
      const checked = rulesForm(doc, errors);
      if (checked instanceof Promise) return checked.then(outcome);
      break;
    }
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
  return outcome();
}
