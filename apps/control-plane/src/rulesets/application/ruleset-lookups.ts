import { EntityManager } from 'typeorm';
import { RuleSetStatus, judgeTransition, LifecycleAction } from '../domain/version-lifecycle';
import { RuleSetEntity, RuleSetVersionEntity } from '../persistence/entities';
import { RuleSetRepository } from '../persistence/ruleset.repository';
import { refusedTransition, ruleSetNotFound, versionNotFound } from './ruleset-errors';

/** The workflow's rule set, or 404 `RULESET_NOT_FOUND`. */
export async function requireSet(
  repo: RuleSetRepository,
  m: EntityManager,
  workflowName: string,
): Promise<RuleSetEntity> {
  const set = await repo.findSet(m, workflowName);
  if (!set) throw ruleSetNotFound(workflowName);
  return set;
}

/** The workflow's rule set row locked for a lifecycle change, or 404 `RULESET_NOT_FOUND`. */
export async function lockSet(
  repo: RuleSetRepository,
  m: EntityManager,
  workflowName: string,
): Promise<{ activeVersion: number | null }> {
  const set = await repo.lockSet(m, workflowName);
  if (!set) throw ruleSetNotFound(workflowName);
  return set;
}

/** One version, or 404 (`RULESET_NOT_FOUND` when the workflow is unknown, else `VERSION_NOT_FOUND`). */
export async function requireVersion(
  repo: RuleSetRepository,
  m: EntityManager,
  workflowName: string,
  version: number,
  lock = false,
): Promise<RuleSetVersionEntity> {
  const row = await repo.findVersion(m, workflowName, version, lock);
  if (row) return row;
  await requireSet(repo, m, workflowName);
  throw versionNotFound(workflowName, version);
}

/** The status `action` leads `target` to, or the lifecycle's 409 refusal. */
export function nextStatus(
  target: Pick<RuleSetVersionEntity, 'workflowName' | 'version' | 'status'>,
  action: LifecycleAction,
  requireApproval: boolean,
): RuleSetStatus {
  const verdict = judgeTransition(target.status, action, { requireApproval });
  if (!verdict.allowed)
    throw refusedTransition(target.workflowName, target.version, target.status, action, verdict.refusal);
  return verdict.to;
}
