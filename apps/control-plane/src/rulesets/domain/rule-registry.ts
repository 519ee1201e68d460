import type { CodeRuleImplementation, CodeRuleResolver, RuleLibrary } from '@arbiter/rule-engine';
import { Injectable } from '@nestjs/common';

export interface RegisteredRule {
  code: string;
  displayName?: string;
  category?: string;
  tags?: string[];
  /** The code that runs the rule, when this process has it (a rule library); manifest-only codes have none. */
  implementation?: CodeRuleImplementation;
}

/**
 * The registered (code-based) rules a `code-based` rule set may reference. Saving or validating a
 * rule set that names a code the registry does not know is a 400 with the offending path. It is also
 * the `codeRules` port of the rule engine (`get(code)` → implementation). The catalog module fills it
 * at startup: the built-in library (with implementations) and every manifest's codes (metadata only).
 */
export abstract class RuleRegistry implements CodeRuleResolver {
  abstract has(code: string): boolean;
  abstract list(): RegisteredRule[];
  abstract get(code: string): CodeRuleImplementation | undefined;
}

@Injectable()
export class InMemoryRuleRegistry extends RuleRegistry {
  private readonly rules = new Map<string, RegisteredRule>();

  /**
   * Adds codes (a bare string registers a code with no metadata). Registering a known code again merges:
   * given fields win, and an implementation already known is kept unless a new one is given.
   */
  register(...rules: (RegisteredRule | string)[]): this {
    for (const rule of rules) {
      const entry = typeof rule === 'string' ? { code: rule } : rule;
      const known = this.rules.get(entry.code);
      const merged = { ...known, ...entry };
      if (!entry.implementation && known?.implementation) merged.implementation = known.implementation;
      this.rules.set(entry.code, merged);
    }
    return this;
  }

  /** Registers every rule of a library, with its implementation. */
  registerLibrary(library: RuleLibrary): this {
    return this.register(
      ...library.list().map((rule) => ({
        code: rule.code,
        displayName: rule.displayName,
        category: rule.category,
        tags: [...rule.tags],
        implementation: rule,
      })),
    );
  }

  has(code: string): boolean {
    return this.rules.has(code);
  }

  get(code: string): CodeRuleImplementation | undefined {
    return this.rules.get(code)?.implementation;
  }

  list(): RegisteredRule[] {
    return [...this.rules.values()].sort((a, b) => a.code.localeCompare(b.code));
  }
}
