import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily } from '@arbiter/platform';
import { RequestParamErrors } from '../shared';

/** Stable `code` values of the execution audit routes (the spec leaves them open). */
export const ExecutionAuditErrors = {
  InvalidCursor: 'INVALID_CURSOR',
  /** The tenant has no workflow of that name (the rule set routes' code). */
  WorkflowNotFound: 'RULESET_NOT_FOUND',
} as const;

/** The errors of the execution audit routes: a bad workflow name, page size or cursor; auth. */
export const ExecutionAuditErrorFamily = defineErrorFamily({
  name: 'ExecutionAuditError',
  envelope: 'trace',
  description: 'An execution audit failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [ExecutionAuditErrors, RequestParamErrors, AuthErrorCodes],
});
