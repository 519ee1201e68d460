import type { CodeRuleResolver } from '../rulesets/types';
import { RuleClass, RuleDefinition, RuleDefinitionError, ruleFromClass } from './define-rule';

const BRAND = Symbol.for('arbiter.rule-library');

/**
 * A registry of code-based rules: the `codeRules` port of `RuleSetCompileContext` (`get(code)`) and the
 * source of a catalog manifest (`list()`). Codes are unique within a library.
 */
export class RuleLibrary implements CodeRuleResolver {
  readonly [BRAND] = true;
  private readonly rules = new Map<string, RuleDefinition>();

  constructor(rules: (RuleDefinition | RuleClass)[] = []) {
    this.register(...rules);
  }

  /** Adds `defineRule(...)` results or `@Rule`-decorated classes; a code already registered throws. */
  register(...rules: (RuleDefinition | RuleClass)[]): this {
    for (const rule of rules) {
      const definition = typeof rule === 'function' ? ruleFromClass(rule) : rule;
      if (this.rules.has(definition.code))
        throw new RuleDefinitionError(`Rule code '${definition.code}' is already registered`, [
          { path: 'code', message: `duplicate rule code '${definition.code}'` },
        ]);
      this.rules.set(definition.code, definition);
    }
    return this;
  }

  get(code: string): RuleDefinition | undefined {
    return this.rules.get(code);
  }

  has(code: string): boolean {
    return this.rules.has(code);
  }

  /** Every rule, sorted by code. */
  list(): RuleDefinition[] {
    return [...this.rules.values()].sort((a, b) => a.code.localeCompare(b.code));
  }

  get size(): number {
    return this.rules.size;
  }
}

/** true for a `RuleLibrary`, also one loaded from another copy of this package. */
export function isRuleLibrary(value: unknown): value is RuleLibrary {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}
