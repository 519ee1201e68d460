import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily, ToolErrorCodes } from '@arbiter/platform';
import { CanaryErrors } from './canary';
import { CatalogErrors } from './catalog';
import { QuotaErrors } from './quotas';
import { RuleSetErrors } from './rulesets';
import { RequestParamErrors } from './shared';

/**
 * Every code the control plane answers with, in its `{ error, code, traceId }` body: the family of the
 * routes that name no narrower one (the tool protocol's tools reach every feature).
 */
export const ControlPlaneErrorFamily = defineErrorFamily({
  name: 'ControlPlaneError',
  envelope: 'trace',
  description: 'A control-plane failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [
    AuthErrorCodes,
    ToolErrorCodes,
    RequestParamErrors,
    RuleSetErrors,
    CatalogErrors,
    CanaryErrors,
    QuotaErrors,
  ],
});
