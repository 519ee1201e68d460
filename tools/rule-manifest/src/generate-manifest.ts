#!/usr/bin/env node
import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { generateManifest, isRuleLibrary, RuleLibrary, RuleManifest } from '@arbiter/rule-engine';

/**
 * `generate-manifest`: loads a module that exports a RuleLibrary and writes the library's catalog
 * manifest (`generateManifest` of @arbiter/rule-engine) as JSON, for the control plane's rule catalog.
 * Development only: a build step of a rule library, never part of a running service.
 */
const USAGE =
  'usage: node generate-manifest.js <module-exporting-a-rule-library> <out.json> [--source-key KEY] [--export NAME]\n' +
  '  The module exports a RuleLibrary (or a function returning one) as NAME, `default`, `library`, or as its only library export.\n' +
  '  KEY defaults to the module file name without extension.';

export interface GenerateManifestArgs {
  modulePath: string;
  outPath: string;
  sourceKey?: string;
  exportName?: string;
}

export class UsageError extends Error {}

export function parseArgs(argv: string[]): GenerateManifestArgs {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--source-key' || arg === '--export') {
      const value = argv[++i];
      if (!value) throw new UsageError(`${arg} needs a value`);
      options[arg] = value;
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else positional.push(arg);
  }
  if (positional.length !== 2) throw new UsageError('expected a module path and an output path');
  return {
    modulePath: positional[0],
    outPath: positional[1],
    sourceKey: options['--source-key'],
    exportName: options['--export'],
  };
}

function asLibrary(value: unknown): RuleLibrary | undefined {
  if (isRuleLibrary(value)) return value;
  if (typeof value === 'function' && value.length === 0) {
    const made = (value as () => unknown)();
    if (isRuleLibrary(made)) return made;
  }
  return undefined;
}

/** Finds the library a module exports (`exportName`, else `default`, `library`, else the only library export). */
export function libraryOf(exports: Record<string, unknown>, exportName?: string): RuleLibrary {
  if (exportName) {
    const library = asLibrary(exports[exportName]);
    if (!library) throw new UsageError(`export '${exportName}' is not a RuleLibrary`);
    return library;
  }
  for (const name of ['default', 'library']) {
    const library = asLibrary(exports[name]);
    if (library) return library;
  }
  const found = Object.values(exports).filter(isRuleLibrary);
  if (found.length === 1) return found[0];
  throw new UsageError(
    found.length
      ? 'the module exports several libraries: pick one with --export'
      : 'the module exports no RuleLibrary',
  );
}

/** Loads the module, generates its manifest and writes it (pretty-printed JSON). */
export function writeManifest(args: GenerateManifestArgs): RuleManifest {
  const modulePath = resolve(args.modulePath);
  const library = libraryOf(require(modulePath) as Record<string, unknown>, args.exportName);
  const manifest = generateManifest(library, args.sourceKey ?? basename(modulePath, extname(modulePath)));
  const outPath = resolve(args.outPath);
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** CLI entry: exit code 0 written, 1 failure, 2 usage. */
export function main(
  argv: string[],
  log: (line: string) => void = console.log,
  logError: (line: string) => void = console.error,
): number {
  try {
    const args = parseArgs(argv);
    const manifest = writeManifest(args);
    log(`wrote ${manifest.rules.length} rule(s) of '${manifest.sourceKey}' to ${resolve(args.outPath)}`);
    return 0;
  } catch (error) {
    const usage = error instanceof UsageError;
    logError(`generate-manifest: ${(error as Error).message}${usage ? `\n${USAGE}` : ''}`);
    return usage ? 2 : 1;
  }
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));
