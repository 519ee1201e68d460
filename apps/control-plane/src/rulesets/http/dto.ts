import { VersionField } from '../../shared';
import { ArrayField, BooleanField, EnumField, ObjectField, StringField } from '@arbiter/platform';
import {
  ACTOR_EXAMPLE,
  CHECKER_EXAMPLE,
  RULE_SET_DOCUMENT_DESCRIPTION,
  RULES_FORM_EXAMPLE,
  WORKFLOW_EXAMPLE,
} from './examples';

const ACTOR_DESCRIPTION =
  "Who acts, for the audit trail. With a token the token's user acts: naming anyone else (here or in " +
  '`X-Actor`) is refused with 403 `ACTOR_MISMATCH`. With authorization disabled: this field, then the ' +
  '`X-Actor` header, then `control-plane`.';

/** `POST /rulesets/{workflowName}/save`: the spec's `rules` form. */
export class SaveRulesDto {
  @ArrayField('object', {
    description:
      'The rules: `[{ id, name, condition, output }]` (checked by the engine: unique ids, names, the ' +
      "condition's syntax in `expressionLanguage`).",
    example: RULES_FORM_EXAMPLE.rules,
  })
  rules!: Record<string, unknown>[];

  @ArrayField('object', {
    optional: true,
    description: 'Decision tables embedded in the rule set (structure and FEEL cells checked by the engine).',
  })
  decisionTables?: Record<string, unknown>[];

  @EnumField(['feel', 'lambda'], {
    optional: true,
    description:
      "Language of the conditions and of `=`-prefixed outputs: 'feel' (the default, parsed) or 'lambda' " +
      '(C#-style lambdas, parsed by the engine).',
    example: 'feel',
  })
  expressionLanguage?: 'feel' | 'lambda';

  @StringField({
    optional: true,
    description: 'Recorded with the version (`changeDescription`) and in the audit entry.',
    example: 'Adults only; gold tier above 50,000',
  })
  changeDescription?: string;

  @StringField({ optional: true, description: ACTOR_DESCRIPTION, example: ACTOR_EXAMPLE })
  actor?: string;
}

/** `POST /api/v1/rule-engine/rulesets/{workflowName}` and `POST /api/v1/control-plane/rulesets/{workflow}`. */
export class SaveRuleSetDto {
  @ObjectField({ description: RULE_SET_DOCUMENT_DESCRIPTION, example: RULES_FORM_EXAMPLE })
  ruleSet!: Record<string, unknown>;

  @BooleanField({
    optional: true,
    description:
      'Activate the new version at once (archiving the active one). Ignored (never activates) while ' +
      '`RuleControlPlane:RequireApproval` is true.',
    example: false,
  })
  activateAfterSave?: boolean;

  @StringField({ optional: true, description: ACTOR_DESCRIPTION, example: ACTOR_EXAMPLE })
  actor?: string;

  @StringField({
    optional: true,
    description: 'Recorded with the version (`changeDescription`) and in the audit entry.',
    example: 'Adults only; gold tier above 50,000',
  })
  detail?: string;
}

/** `POST /rulesets/{workflowName}/activate`: the version in the body. */
export class ActivateDto {
  @VersionField({ description: 'The version to activate.', example: 2 })
  version!: number;

  @StringField({ optional: true, description: 'Recorded in the audit entry.', example: 'ship it' })
  detail?: string;

  @StringField({ optional: true, description: ACTOR_DESCRIPTION, example: CHECKER_EXAMPLE })
  actor?: string;
}

/** Optional body of the path-version activation routes. */
export class ActivateOptionalDto {
  @StringField({ optional: true, description: 'Recorded in the audit entry.', example: 'ship it' })
  detail?: string;

  @StringField({ optional: true, description: ACTOR_DESCRIPTION, example: CHECKER_EXAMPLE })
  actor?: string;
}

/**
 * Submit / approve (`detail` required) and reject (`reason`, or `detail`, required). The requirement is
 * the route's own (400 `DETAIL_REQUIRED` / `REJECTION_REASON_REQUIRED`), so one body serves the three.
 */
export class TransitionDto {
  @StringField({
    optional: true,
    description:
      'Why: required by submit and approve (400 `DETAIL_REQUIRED` when absent or blank); accepted as the ' +
      'reason of a reject.',
    example: 'Reviewed with risk: thresholds match the policy',
  })
  detail?: string;

  @StringField({
    optional: true,
    description:
      'Reject only: the mandatory rejection reason (or `detail`; 400 `REJECTION_REASON_REQUIRED` when ' +
      'both are absent or blank).',
    example: 'Missing tests for the income threshold',
  })
  reason?: string;

  @BooleanField({
    optional: true,
    description:
      'Reject only: true is a final denial: the version becomes `Rejected` (terminal, never activated) ' +
      'instead of going back to `Draft`.',
    example: false,
  })
  final?: boolean;

  @StringField({ optional: true, description: ACTOR_DESCRIPTION, example: CHECKER_EXAMPLE })
  actor?: string;
}

/** `POST /rulesets/{workflowName}/export`. */
export class ExportDto {
  @EnumField(['json', 'yaml'], {
    optional: true,
    description: "The answer's format: the rule set as JSON (default) or as YAML.",
    example: 'yaml',
  })
  format?: 'json' | 'yaml';

  @VersionField({
    optional: true,
    description: 'The version to export; the active version when omitted.',
    example: 2,
  })
  version?: number;
}

/** `POST /api/v1/control-plane/cache/invalidate`. */
export class InvalidateDto {
  @StringField({
    optional: true,
    description:
      'One workflow (404 `RULESET_NOT_FOUND` when the tenant has none); omitted: every workflow of the tenant.',
    example: WORKFLOW_EXAMPLE,
  })
  workflowName?: string;

  @StringField({
    optional: true,
    description: 'Recorded in the audit entry.',
    example: 'stale cache on node 3',
  })
  detail?: string;

  @StringField({ optional: true, description: ACTOR_DESCRIPTION, example: ACTOR_EXAMPLE })
  actor?: string;
}

/** `POST /api/v1/control-plane/rulesets/{workflow}/store/import`. */
export class StoreImportDto {
  @BooleanField({
    optional: true,
    description:
      'Activate the last imported version (ignored while `RuleControlPlane:RequireApproval` is true, and ' +
      'when nothing was imported).',
    example: true,
  })
  activateLatest?: boolean;

  @StringField({ optional: true, description: ACTOR_DESCRIPTION, example: ACTOR_EXAMPLE })
  actor?: string;
}
