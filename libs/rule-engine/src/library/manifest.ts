import { checkRuleMetadata } from './define-rule';
import { copyContract, LibraryProblem, RuleContract } from './contract';
import { isPlainObject, nonEmptyString } from './util';
import type { RuleLibrary } from './rule-library';

/** One rule as a manifest describes it (metadata only: no implementation). */
export interface RuleManifestEntry {
  code: string;
  displayName: string;
  category: string;
  tags: string[];
  hidden: boolean;
  description?: string;
  inputSchema: RuleContract;
  outputSchema: RuleContract;
}

/**
 * What the rule library generator emits and the rule catalog serves:
 * `{ schemaVersion: 1, sourceKey, generatedAt, rules: [...] }`.
 */
export interface RuleManifest {
  schemaVersion: 1;
  /** Names the library (the catalog reports it as each item's `sourceKey`). */
  sourceKey: string;
  generatedAt: string;
  rules: RuleManifestEntry[];
}

export class RuleManifestError extends Error {
  constructor(
    message: string,
    readonly problems: LibraryProblem[],
  ) {
    super(message);
    this.name = 'RuleManifestError';
  }
}

/** The manifest of a library: every rule's metadata, sorted by code. */
export function generateManifest(
  library: RuleLibrary,
  sourceKey: string,
  options: { generatedAt?: Date } = {},
): RuleManifest {
  if (!nonEmptyString(sourceKey))
    throw new RuleManifestError('sourceKey is required', [{ path: 'sourceKey', message: 'required' }]);
  return {
    schemaVersion: 1,
    sourceKey,
    generatedAt: (options.generatedAt ?? new Date()).toISOString(),
    rules: library.list().map((rule) => ({
      code: rule.code,
      displayName: rule.displayName,
      category: rule.category,
      tags: [...rule.tags],
      hidden: rule.hidden,
      ...(rule.description !== undefined ? { description: rule.description } : {}),
      inputSchema: copyContract(rule.inputSchema),
      outputSchema: copyContract(rule.outputSchema),
    })),
  };
}

/**
 * Validates parsed manifest JSON and returns a normalised copy (defaults: `tags: []`, `hidden: false`).
 * Throws `RuleManifestError` listing every problem with its path (`rules[2].inputSchema.fields[0].dataType`).
 */
export function parseManifest(json: unknown, origin = 'manifest'): RuleManifest {
  const problems: LibraryProblem[] = [];
  if (!isPlainObject(json)) throw new RuleManifestError(`${origin}: must be a JSON object`, []);
  if (json.schemaVersion !== 1) problems.push({ path: 'schemaVersion', message: 'must be 1' });
  if (!nonEmptyString(json.sourceKey)) problems.push({ path: 'sourceKey', message: 'required' });
  if (json.generatedAt !== undefined && typeof json.generatedAt !== 'string')
    problems.push({ path: 'generatedAt', message: 'must be an ISO 8601 string' });
  const rules = Array.isArray(json.rules) ? json.rules : [];
  if (!Array.isArray(json.rules)) problems.push({ path: 'rules', message: 'must be an array' });
  const codes = new Set<string>();
  rules.forEach((rule, i) => {
    problems.push(...checkRuleMetadata(rule, `rules[${i}]`));
    const code = isPlainObject(rule) ? rule.code : undefined;
    if (typeof code === 'string') {
      if (codes.has(code)) problems.push({ path: `rules[${i}].code`, message: `duplicate code '${code}'` });
      codes.add(code);
    }
  });
  if (problems.length)
    throw new RuleManifestError(
      `${origin}: invalid rule manifest (${problems.length} problem${problems.length === 1 ? '' : 's'}): ` +
        problems
          .slice(0, 5)
          .map((p) => `${p.path}: ${p.message}`)
          .join('; '),
      problems,
    );
  const entries = rules as Record<string, any>[];
  return {
    schemaVersion: 1,
    sourceKey: json.sourceKey as string,
    generatedAt: (json.generatedAt as string | undefined) ?? new Date(0).toISOString(),
    rules: entries.map((r) => ({
      code: r.code,
      displayName: r.displayName,
      category: r.category,
      tags: [...(r.tags ?? [])],
      hidden: r.hidden ?? false,
      ...(r.description !== undefined ? { description: r.description } : {}),
      inputSchema: copyContract(r.inputSchema),
      outputSchema: copyContract(r.outputSchema),
    })),
  };
}
