import { ApplicationRole1732060000000 } from './1732060000000-application-role';
import { RuleSets1732060000100 } from './1732060000100-rule-sets';
import { Canary1732060000200 } from './1732060000200-canary';
import { Quotas1732060000300 } from './1732060000300-quotas';
import { ExecutionAudit1732060000400 } from './1732060000400-execution-audit';
import { UiCatalog1732060000500 } from './1732060000500-ui-catalog';
import { ExecutionAuditUuidKey1732060000600 } from './1732060000600-execution-audit-uuid-key';
import { ExecutionAuditRowType1732060000700 } from './1732060000700-execution-audit-row-type';
import { RolloutArmCounts1732060000800 } from './1732060000800-rollout-arm-counts';
import { CopilotDraftProvenance1732060000900 } from './1732060000900-copilot-draft-provenance';
import { SignedAuditHeads1732060001000 } from './1732060001000-signed-audit-heads';
import { CrossTenantReader1732060002400 } from './1732060002400-cross-tenant-reader';

/** Every migration of the control plane, in order. */
export const CONTROL_PLANE_MIGRATIONS = [
  ApplicationRole1732060000000,
  RuleSets1732060000100,
  Canary1732060000200,
  Quotas1732060000300,
  ExecutionAudit1732060000400,
  UiCatalog1732060000500,
  ExecutionAuditUuidKey1732060000600,
  ExecutionAuditRowType1732060000700,
  RolloutArmCounts1732060000800,
  CopilotDraftProvenance1732060000900,
  SignedAuditHeads1732060001000,
  CrossTenantReader1732060002400,
];
