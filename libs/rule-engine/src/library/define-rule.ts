import type { CodeRuleImplementation, Facts } from '../rulesets/types';
import { checkContract, copyContract, LibraryProblem, RuleContract } from './contract';
import { isPlainObject, nonEmptyString } from './util';

/** What a code-based rule returns: see `CodeRuleImplementation` (boolean, facts or `{ matched, outputs }`). */
export type RuleResult = ReturnType<CodeRuleImplementation['evaluate']>;

/** The catalog-facing description of a rule (everything but its code). */
export interface RuleMetadata {
  /** Stable code a `code-based` rule set names (`CREDIT_MIN`). 1-128 of letters, digits, `_ . : -`. */
  code: string;
  displayName: string;
  /** Catalog group. */
  category: string;
  tags?: string[];
  /** Hidden rules are left out of the catalog unless `includeHidden` is asked for. Default false. */
  hidden?: boolean;
  description?: string;
  /** Facts the rule reads. */
  inputSchema: RuleContract;
  /** Facts the rule produces. */
  outputSchema: RuleContract;
}

export interface RuleSpec extends RuleMetadata {
  evaluate(facts: Facts, parameters: Record<string, unknown>): RuleResult;
}

/** A validated, immutable rule: catalog metadata plus the implementation (a `CodeRuleImplementation`). */
export interface RuleDefinition extends CodeRuleImplementation {
  readonly code: string;
  readonly displayName: string;
  readonly category: string;
  readonly tags: readonly string[];
  readonly hidden: boolean;
  readonly description?: string;
  readonly inputSchema: RuleContract;
  readonly outputSchema: RuleContract;
}

/** A rule definition is invalid (`problems` name each offending field) or its code is taken. */
export class RuleDefinitionError extends Error {
  constructor(
    message: string,
    readonly problems: LibraryProblem[] = [],
  ) {
    super(message);
    this.name = 'RuleDefinitionError';
  }
}

export const RULE_CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

/** Checks rule metadata; returns every problem found (empty when valid). */
export function checkRuleMetadata(meta: unknown, at = ''): LibraryProblem[] {
  const problems: LibraryProblem[] = [];
  const p = (field: string) => (at ? `${at}.${field}` : field);
  if (!isPlainObject(meta)) return [{ path: at, message: 'must be an object' }];
  if (typeof meta.code !== 'string' || !RULE_CODE_PATTERN.test(meta.code))
    problems.push({ path: p('code'), message: `must match ${RULE_CODE_PATTERN.source}` });
  if (!nonEmptyString(meta.displayName))
    problems.push({ path: p('displayName'), message: 'required (non-empty string)' });
  if (!nonEmptyString(meta.category))
    problems.push({ path: p('category'), message: 'required (non-empty string)' });
  if (meta.tags !== undefined && (!Array.isArray(meta.tags) || !meta.tags.every(nonEmptyString)))
    problems.push({ path: p('tags'), message: 'must be an array of non-empty strings' });
  if (meta.hidden !== undefined && typeof meta.hidden !== 'boolean')
    problems.push({ path: p('hidden'), message: 'must be a boolean' });
  if (meta.description !== undefined && typeof meta.description !== 'string')
    problems.push({ path: p('description'), message: 'must be a string' });
  checkContract(meta.inputSchema, p('inputSchema'), problems);
  checkContract(meta.outputSchema, p('outputSchema'), problems);
  return problems;
}

function build(meta: RuleMetadata, evaluate: RuleSpec['evaluate']): RuleDefinition {
  const problems = checkRuleMetadata(meta);
  if (typeof evaluate !== 'function') problems.push({ path: 'evaluate', message: 'must be a function' });
  if (problems.length)
    throw new RuleDefinitionError(
      `Invalid rule '${String((meta as { code?: unknown })?.code)}': ${problems
        .map((x) => `${x.path}: ${x.message}`)
        .join('; ')}`,
      problems,
    );
  return Object.freeze({
    code: meta.code,
    displayName: meta.displayName,
    category: meta.category,
    tags: Object.freeze([...(meta.tags ?? [])]),
    hidden: meta.hidden ?? false,
    ...(meta.description !== undefined ? { description: meta.description } : {}),
    inputSchema: copyContract(meta.inputSchema),
    outputSchema: copyContract(meta.outputSchema),
    evaluate,
  });
}

/** Defines a code-based rule; throws `RuleDefinitionError` naming every bad field. */
export function defineRule(spec: RuleSpec): RuleDefinition {
  const { evaluate, ...meta } = spec;
  return build(meta, evaluate);
}

/** A class whose instances evaluate a rule; decorate it with `@Rule({...})`. */
export type RuleClass = new () => {
  evaluate(facts: Facts, parameters: Record<string, unknown>): RuleResult;
};

const RULE_METADATA = new WeakMap<RuleClass, RuleMetadata>();

/**
 * Class decorator: `@Rule({ code, displayName, category, inputSchema, outputSchema })` on a class with an
 * `evaluate(facts, parameters)` method. The metadata is checked at once; `RuleLibrary.register(TheClass)`
 * instantiates the class (no constructor arguments) and registers it.
 */
export function Rule(meta: RuleMetadata) {
  const problems = checkRuleMetadata(meta);
  if (problems.length)
    throw new RuleDefinitionError(
      `Invalid @Rule '${String(meta?.code)}': ${problems.map((x) => `${x.path}: ${x.message}`).join('; ')}`,
      problems,
    );
  return <T extends RuleClass>(target: T): T => {
    RULE_METADATA.set(target, meta);
    return target;
  };
}

/** The definition of a `@Rule`-decorated class; throws when the class is not decorated. */
export function ruleFromClass(type: RuleClass): RuleDefinition {
  const meta = RULE_METADATA.get(type);
  if (!meta) throw new RuleDefinitionError(`Class '${type.name}' has no @Rule({...}) decorator`);
  const instance = new type();
  return build(meta, (facts, parameters) => instance.evaluate(facts, parameters));
}
