import { AppError, RequestContext } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { canonicalJson } from '@arbiter/audit-chain';
import { assertWorkflowName } from '../../shared';
import { ApprovalSettings, RuleStoreSettings } from '../rulesets.settings';
import { ActivateVersion } from '../application/activate-version';
import { RuleSetErrors } from '../application/ruleset-errors';
import { RuleSetQueries } from '../application/ruleset-queries';
import { SaveRuleSet } from '../application/save-ruleset';

/** Pretty JSON with every object's keys sorted (stable, diff-friendly in Git). */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n';
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object' && !(value instanceof Date))
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}

const VERSION_FILE = /^v(\d{6,})\.json$/;

/**
 * The file-backed rule store (`RuleStoreConfigs:RootPath`): an import/export mirror of the database,
 * laid out for Git: `<root>/<tenant>/<workflow>/v000001.json` (one file per version: metadata and the
 * rule set, keys sorted, 2-space indent) and `workflow.json` (active and latest version). Export
 * writes every version (atomically, file by file); import saves each file's rule set through the
 * normal save path (same validation, audited as IMPORT) when its number is above the latest stored
 * version; a file whose number is already stored must hold the same rule set (skipped) or the import
 * stops with 409 `FILE_STORE_CONFLICT` (versions are immutable). Re-importing an unchanged tree is a no-op.
 */
@Injectable()
export class FileRuleStore {
  constructor(
    @Inject(RuleStoreSettings) private readonly settings: RuleStoreSettings,
    @Inject(ApprovalSettings) private readonly approval: ApprovalSettings,
    @Inject(RuleSetQueries) private readonly queries: RuleSetQueries,
    @Inject(SaveRuleSet) private readonly saving: SaveRuleSet,
    @Inject(ActivateVersion) private readonly activation: ActivateVersion,
  ) {}

  private dir(workflowName: string): string {
    const root = this.settings.rootPath.trim();
    if (!root)
      throw AppError.conflict(
        RuleSetErrors.FileStoreNotConfigured,
        'The file-backed rule store is not configured (RuleStoreConfigs:RootPath is empty)',
      );
    return join(resolve(root), RequestContext.tenantId(), assertWorkflowName(workflowName));
  }

  async exportWorkflow(workflowName: string) {
    const dir = this.dir(workflowName);
    const { set, versions } = await this.queries.allVersions(workflowName);
    mkdirSync(dir, { recursive: true });
    const files: string[] = [];
    for (const v of versions) {
      const name = `v${String(v.version).padStart(6, '0')}.json`;
      write(join(dir, name), {
        workflowName: v.workflowName,
        version: v.version,
        status: v.status,
        shape: v.shape,
        createdAt: v.createdAt,
        createdBy: v.createdBy,
        changeDescription: v.changeDescription,
        ruleSet: v.ruleSet,
      });
      files.push(name);
    }
    write(join(dir, 'workflow.json'), {
      workflowName,
      activeVersion: set.activeVersion,
      latestVersion: set.latestVersion,
    });
    return { workflowName, directory: dir, files, activeVersion: set.activeVersion };
  }

  async importWorkflow(workflowName: string, options: { actor?: string; activateLatest?: boolean }) {
    const dir = this.dir(workflowName);
    if (!existsSync(dir))
      throw AppError.notFound(
        RuleSetErrors.FileStoreNotFound,
        `No directory for '${workflowName}' under the rule store`,
      );
    const files = readdirSync(dir)
      .filter((f) => VERSION_FILE.test(f))
      .sort((a, b) => Number(VERSION_FILE.exec(a)![1]) - Number(VERSION_FILE.exec(b)![1]));
    const stored = new Map<number, string>();
    try {
      const { versions } = await this.queries.allVersions(workflowName);
      for (const v of versions) stored.set(v.version, canonicalJson(v.ruleSet));
    } catch {
      // the workflow is not stored here yet: every file is imported
    }
    const latestStored = Math.max(0, ...stored.keys());
    const imported: { file: string; version: number }[] = [];
    const skipped: string[] = [];
    for (const file of files) {
      const number = Number(VERSION_FILE.exec(file)![1]);
      let parsed: any;
      try {
        parsed = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      } catch (error) {
        throw AppError.badRequest(
          RuleSetErrors.InvalidRuleSet,
          `${file}: not valid JSON (${(error as Error).message})`,
        );
      }
      const ruleSet = parsed?.ruleSet;
      if (number <= latestStored) {
        // Already here: it must be the same rule set, or the mirror and the database have diverged.
        if (stored.get(number) === canonicalJson(ruleSet ?? null)) {
          skipped.push(file);
          continue;
        }
        throw AppError.conflict(
          RuleSetErrors.FileStoreConflict,
          `${file} differs from stored version ${number} of '${workflowName}': versions are immutable; add the change as a new file after v${String(latestStored).padStart(6, '0')}.json`,
        );
      }
      const saved = await this.saving.execute(workflowName, {
        document: ruleSet,
        actor: options.actor,
        detail: `imported from ${file}${parsed?.changeDescription ? `: ${parsed.changeDescription}` : ''}`,
        pathPrefix: `${file}:ruleSet`,
        action: 'IMPORT',
      });
      imported.push({ file, version: saved.version });
    }
    let activated: number | null = null;
    if (options.activateLatest && imported.length && !this.approval.requireApproval) {
      activated = imported[imported.length - 1].version;
      await this.activation.execute(workflowName, activated, options.actor, 'activated after import');
    }
    return { workflowName, directory: dir, imported, skipped, activatedVersion: activated };
  }
}

function write(path: string, value: unknown) {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, stableJson(value));
  renameSync(tmp, path);
}
