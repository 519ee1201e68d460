import type {
  CodeRuleImplementation,
  CompiledRuleSet,
  Facts,
  RuleSetCompileContext,
  RuleSetEvaluation,
  RuleSetEvaluationOptions,
} from '../rulesets/types';
import { LibraryProblem } from './contract';
import { isPlainObject, nonEmptyString } from './util';

/** `{ type: 'code-based', rules: [{ code, id?, name?, parameters?, enabled? }] }` */
export interface CodeBasedRuleSetDocument {
  type?: 'code-based';
  rules: CodeBasedRuleRef[];
}

export interface CodeBasedRuleRef {
  code: string;
  id?: string;
  name?: string;
  parameters?: Record<string, unknown>;
  enabled?: boolean;
}

/** The document is malformed or names rule codes the resolver does not know (`problems` give each path). */
export class CodeBasedCompileError extends Error {
  readonly code: 'INVALID_CODE_BASED_RULESET' | 'UNKNOWN_RULE_CODE';
  constructor(
    message: string,
    readonly problems: LibraryProblem[],
    code: 'INVALID_CODE_BASED_RULESET' | 'UNKNOWN_RULE_CODE',
  ) {
    super(message);
    this.name = 'CodeBasedCompileError';
    this.code = code;
  }
}

interface CompiledRule {
  ruleName: string;
  implementation: CodeRuleImplementation;
  parameters: Record<string, unknown>;
}

type Outcome = { matched: boolean; outputs: Facts; failReason: string | null };

/**
 * Normalises what a rule returned (see `CodeRuleImplementation`): a boolean; `{ matched, outputs? }`
 * (an object whose only keys are a boolean `matched` and `outputs`); any other plain object = matched
 * with those facts as outputs. null/undefined = not matched; anything else is a rule failure.
 */
function normalise(result: unknown): Outcome {
  if (typeof result === 'boolean')
    return { matched: result, outputs: {}, failReason: result ? null : 'rule returned false' };
  if (result === null || result === undefined)
    return { matched: false, outputs: {}, failReason: 'rule returned no result' };
  if (!isPlainObject(result)) throw new Error(`rule returned an unsupported result (${typeof result})`);
  const keys = Object.keys(result);
  const structured =
    typeof result.matched === 'boolean' && keys.every((k) => k === 'matched' || k === 'outputs');
  if (!structured) return { matched: true, outputs: result, failReason: null };
  if (result.outputs !== undefined && !isPlainObject(result.outputs))
    throw new Error('rule returned outputs that are not an object');
  const matched = result.matched as boolean;
  return {
    matched,
    outputs: (result.outputs as Facts | undefined) ?? {},
    failReason: matched ? null : 'rule returned matched: false',
  };
}

function checkDocument(doc: unknown): LibraryProblem[] {
  if (!isPlainObject(doc)) return [{ path: '', message: 'must be an object' }];
  const problems: LibraryProblem[] = [];
  if (doc.type !== undefined && doc.type !== 'code-based')
    problems.push({ path: 'type', message: "must be 'code-based'" });
  if (!Array.isArray(doc.rules) || doc.rules.length === 0) {
    problems.push({ path: 'rules', message: 'must be a non-empty array of { code, parameters? }' });
    return problems;
  }
  doc.rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!isPlainObject(rule)) return problems.push({ path: at, message: 'must be an object' });
    if (!nonEmptyString(rule.code))
      problems.push({ path: `${at}.code`, message: 'required (non-empty string)' });
    if (rule.parameters !== undefined && !isPlainObject(rule.parameters))
      problems.push({ path: `${at}.parameters`, message: 'must be an object' });
    if (rule.enabled !== undefined && typeof rule.enabled !== 'boolean')
      problems.push({ path: `${at}.enabled`, message: 'must be a boolean' });
  });
  return problems;
}

/**
 * Compiles a code-based rule set: each enabled rule is resolved through `ctx.codeRules` once, here.
 * Evaluation runs the rules in document order; each rule sees the input facts plus the outputs merged so
 * far; the outputs of matched rules are merged (later rules win on the same key). A throwing rule is an
 * `errors` entry `{ ruleName, code: 'RULE_FAILED', message }` and counts as not matched.
 */
export async function compileCodeBased(
  doc: unknown,
  ctx: RuleSetCompileContext = {},
): Promise<CompiledRuleSet> {
  const problems = checkDocument(doc);
  if (problems.length)
    throw new CodeBasedCompileError(
      `Invalid code-based rule set: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
      problems,
      'INVALID_CODE_BASED_RULESET',
    );
  const rules: CompiledRule[] = [];
  const unknown: LibraryProblem[] = [];
  (doc as CodeBasedRuleSetDocument).rules.forEach((ref, i) => {
    if (ref.enabled === false) return;
    const implementation = ctx.codeRules?.get(ref.code);
    if (!implementation) {
      unknown.push({ path: `rules[${i}].code`, message: `unknown rule code '${ref.code}'` });
      return;
    }
    rules.push({
      ruleName: ref.name ?? ref.id ?? ref.code,
      implementation,
      parameters: ref.parameters ?? {},
    });
  });
  if (unknown.length)
    throw new CodeBasedCompileError(
      `${unknown.map((p) => `${p.path}: ${p.message}`).join('; ')}` +
        (ctx.codeRules ? '' : ' (no rule library: the codeRules port is missing)'),
      unknown,
      'UNKNOWN_RULE_CODE',
    );
  return {
    shape: 'code-based',
    ruleNames: rules.map((r) => r.ruleName),
    evaluate: (facts, options) => evaluateRules(rules, facts, options ?? {}),
    evaluateNow: (facts, options) => evaluateRules(rules, facts, options ?? {}),
  };
}

async function evaluateRules(
  rules: CompiledRule[],
  facts: Facts,
  options: RuleSetEvaluationOptions,
): Promise<RuleSetEvaluation> {
  const tracing = options.trace !== false;
  const result: RuleSetEvaluation = {
    outputs: {},
    traces: [],
    errors: [],
    rulesMatched: [],
    rulesExecuted: 0,
    sideEffectsApplied: false,
  };
  for (const rule of rules) {
    if (options.deadline !== undefined && Date.now() > options.deadline) {
      result.errors.push({
        ruleName: rule.ruleName,
        code: 'DEADLINE_EXCEEDED',
        message: `deadline passed before rule '${rule.ruleName}'`,
      });
      break;
    }
    if (options.signal?.aborted) {
      result.errors.push({ ruleName: rule.ruleName, code: 'ABORTED', message: 'evaluation was cancelled' });
      break;
    }
    const started = tracing ? performance.now() : 0;
    let outcome: Outcome;
    try {
      const returned = await rule.implementation.evaluate({ ...facts, ...result.outputs }, rule.parameters);
      outcome = normalise(returned);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      result.errors.push({ ruleName: rule.ruleName, code: 'RULE_FAILED', message });
      outcome = { matched: false, outputs: {}, failReason: message };
    }
    result.rulesExecuted++;
    if (outcome.matched) {
      result.rulesMatched.push(rule.ruleName);
      Object.assign(result.outputs, outcome.outputs);
    }
    if (tracing)
      result.traces.push({
        ruleName: rule.ruleName,
        matched: outcome.matched,
        failReason: outcome.failReason,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        outputs: outcome.outputs,
      });
  }
  return result;
}
