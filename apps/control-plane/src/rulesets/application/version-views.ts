import { iso } from '../../shared';
import { rulesOf, RuleSetShape } from '@arbiter/rule-engine';
import { RuleSetVersionEntity } from '../persistence/entities';

/** A version as the API lists it: every lifecycle field, no document. */
export function versionSummary(v: RuleSetVersionEntity) {
  return {
    workflowName: v.workflowName,
    version: v.version,
    status: v.status,
    shape: v.shape,
    createdAt: iso(v.createdAt),
    createdBy: v.createdBy,
    changeDescription: v.changeDescription,
    submittedBy: v.submittedBy,
    submittedAt: iso(v.submittedAt),
    approvedBy: v.approvedBy,
    approvedAt: iso(v.approvedAt),
    activatedBy: v.activatedBy,
    activatedAt: iso(v.activatedAt),
    archivedAt: iso(v.archivedAt),
    rejectedBy: v.rejectedBy,
    rejectedAt: iso(v.rejectedAt),
    rejectionReason: v.rejectionReason,
  };
}

/** A version with its document: the summary, its rules, its decision tables and the rule set itself. */
export function versionDocument(v: RuleSetVersionEntity) {
  const doc = v.document;
  const rules =
    v.shape === 'rules' || v.shape === 'code-based'
      ? (doc.rules as unknown[])
      : rulesOf(doc, v.shape as RuleSetShape);
  return {
    ...versionSummary(v),
    rules,
    decisionTables: (doc.decisionTables as unknown[] | undefined) ?? [],
    ruleSet: doc,
  };
}

export type VersionDocument = ReturnType<typeof versionDocument>;
