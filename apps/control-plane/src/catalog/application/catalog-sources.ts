import { ConfigurationError } from '@arbiter/platform';
import {
  BUILT_IN_RULES_SOURCE_KEY,
  checkContract,
  createBuiltInRuleLibrary,
  generateManifest,
  LibraryProblem,
  parseManifest,
  RuleManifest,
} from '@arbiter/rule-engine';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { contractSourceType, StaticContract } from '../domain/contract-source';

const MANIFESTS_KEY = 'RuleCatalog:ManifestPaths';
const STATIC_KEY = 'RuleCatalog:StaticContractsPath';

export interface LoadedManifest {
  manifest: RuleManifest;
  /** `built-in`, or the file it was read from. */
  origin: string;
}

/** What the catalog serves, read and checked once at startup. */
export interface CatalogSources {
  manifests: LoadedManifest[];
  staticContracts: StaticContract[];
}

/** Manifest files of the configured paths: a file as is, a directory's `*.json` files sorted by name. */
function manifestFiles(paths: string[]): string[] {
  return paths.flatMap((configured) => {
    const path = resolve(configured);
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      throw new ConfigurationError(`${MANIFESTS_KEY}: '${configured}' does not exist`, [MANIFESTS_KEY]);
    }
    if (!isDirectory) return [path];
    return readdirSync(path)
      .filter((f) => f.toLowerCase().endsWith('.json'))
      .sort()
      .map((f) => join(path, f));
  });
}

function readManifest(file: string): RuleManifest {
  try {
    return parseManifest(JSON.parse(readFileSync(file, 'utf8')), file);
  } catch (error) {
    throw new ConfigurationError(`${MANIFESTS_KEY}: ${(error as Error).message}`, [MANIFESTS_KEY]);
  }
}

/** A code defined by two configured manifests is refused (a configured manifest may redefine a built-in code). */
function assertUniqueCodes(manifests: LoadedManifest[]): void {
  const owners = new Map<string, LoadedManifest>();
  for (const loaded of manifests) {
    if (loaded.origin === 'built-in') continue;
    for (const rule of loaded.manifest.rules) {
      const owner = owners.get(rule.code);
      if (owner)
        throw new ConfigurationError(
          `${MANIFESTS_KEY}: rule code '${rule.code}' is defined by '${owner.manifest.sourceKey}' (${owner.origin}) and again by '${loaded.manifest.sourceKey}' (${loaded.origin})`,
          [MANIFESTS_KEY],
        );
      owners.set(rule.code, loaded);
    }
  }
}

function parseStaticContracts(json: unknown): StaticContract[] {
  const list = (json as { contracts?: unknown })?.contracts;
  if (!Array.isArray(list)) throw new Error('must be { "contracts": [ ... ] }');
  const problems: LibraryProblem[] = [];
  list.forEach((entry, i) => {
    const at = `contracts[${i}]`;
    if (typeof entry?.sourceType !== 'string' || !contractSourceType(entry.sourceType))
      problems.push({
        path: `${at}.sourceType`,
        message: 'must be one of rule, decision-table, flow, workflow',
      });
    if (typeof entry?.sourceCode !== 'string' || !entry.sourceCode.trim())
      problems.push({ path: `${at}.sourceCode`, message: 'required' });
    checkContract(entry?.request, `${at}.request`, problems);
    checkContract(entry?.response, `${at}.response`, problems);
  });
  if (problems.length) throw new Error(problems.map((p) => `${p.path}: ${p.message}`).join('; '));
  return list.map((entry) => ({
    sourceType: contractSourceType(entry.sourceType)!,
    sourceCode: entry.sourceCode,
    request: { contractName: entry.request.contractName, fields: entry.request.fields },
    response: { contractName: entry.response.contractName, fields: entry.response.fields },
  }));
}

function readStaticContracts(path: string): StaticContract[] {
  if (!path.trim()) return [];
  try {
    return parseStaticContracts(JSON.parse(readFileSync(path, 'utf8')));
  } catch (error) {
    throw new ConfigurationError(
      `${STATIC_KEY}: '${path}' is not a valid contracts file: ${(error as Error).message}`,
      [STATIC_KEY],
    );
  }
}

/**
 * Reads every configured source; throws a ConfigurationError naming the key and the problem (a missing
 * path, bad JSON, an invalid manifest with the offending paths, a duplicate code, a bad static contract).
 */
export function loadCatalogSources(options: {
  includeBuiltInRules: boolean;
  manifestPaths: string[];
  staticContractsPath: string;
}): CatalogSources {
  const manifests: LoadedManifest[] = [];
  if (options.includeBuiltInRules)
    manifests.push({
      manifest: generateManifest(createBuiltInRuleLibrary(), BUILT_IN_RULES_SOURCE_KEY),
      origin: 'built-in',
    });
  for (const file of manifestFiles(options.manifestPaths))
    manifests.push({ manifest: readManifest(file), origin: file });
  assertUniqueCodes(manifests);
  return { manifests, staticContracts: readStaticContracts(options.staticContractsPath) };
}
