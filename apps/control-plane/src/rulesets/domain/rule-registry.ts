import { Injectable } from '@nestjs/common';

export interface RegisteredRule {
  code: string;
  displayName?: string;
  category?: string;
  tags?: string[];
}

/**
 * The registered (code-based) rules a `code-based` rule set may reference. Saving or validating a
 * rule set that names a code the registry does not know is a 400 with the offending path. The
 * default implementation is in memory (`register()` at startup, e.g. from a rule library's manifest);
 * the rule catalog issue replaces it with the manifest-backed catalog through DI.
 */
export abstract class RuleRegistry {
  abstract has(code: string): boolean;
  abstract list(): RegisteredRule[];
}

@Injectable()
export class InMemoryRuleRegistry extends RuleRegistry {
  private readonly rules = new Map<string, RegisteredRule>();

  register(...rules: (RegisteredRule | string)[]): this {
    for (const rule of rules) {
      const entry = typeof rule === 'string' ? { code: rule } : rule;
      this.rules.set(entry.code, entry);
    }
    return this;
  }

  has(code: string): boolean {
    return this.rules.has(code);
  }

  list(): RegisteredRule[] {
    return [...this.rules.values()].sort((a, b) => a.code.localeCompare(b.code));
  }
}
