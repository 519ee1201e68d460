import { AuthErrorCodes } from '@arbiter/auth';
import { CommonErrorCodes } from '@arbiter/contracts';
import { ApiErrors } from '@arbiter/platform';
import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';

/** The codes of a JSON body the validation pipe refuses. */
export const BODY_ERRORS = [
  CommonErrorCodes.ValidationFailed,
  CommonErrorCodes.MalformedJson,
  CommonErrorCodes.BodyTooDeep,
] as const;

type Codes = readonly string[];

const list = (codes: Codes) => codes.map((code) => `\`${code}\``).join(', ');

/**
 * The error statuses of a rule set route, each described with the codes it carries there (all of them in
 * the `RuleSetError` family). Every route also answers 400 `INVALID_TENANT_ID` (a malformed
 * `x-tenant-id`; the document lists 400 on every operation by itself) and, since every one requires a
 * policy, 503 `PDP_UNAVAILABLE` when a configured policy decision point
 * (`ControlPlaneAuth:PolicyDecisionPointUrl`) does not answer.
 */
export function ApiRuleSetErrors(
  cases: { 400?: Codes; 404?: Codes; 409?: Codes; 503?: Codes } = {},
): MethodDecorator {
  const badRequest = [...(cases[400] ?? []), CommonErrorCodes.InvalidTenantId];
  const unavailable = [AuthErrorCodes.PolicyDecisionPointUnavailable, ...(cases[503] ?? [])];
  const decorators = [
    ApiResponse({ status: 400, description: `Bad request: ${list(badRequest)}` }),
    ApiResponse({
      status: 503,
      description: `The policy decision point${cases[503] ? ' (or another service asked)' : ''} did not answer: ${list(unavailable)}`,
    }),
  ];
  if (cases[404])
    decorators.push(ApiResponse({ status: 404, description: `Not found: ${list(cases[404])}` }));
  if (cases[409])
    decorators.push(
      ApiResponse({ status: 409, description: `Conflict with the current state: ${list(cases[409])}` }),
    );
  const statuses = [503, ...(cases[404] ? [404] : []), ...(cases[409] ? [409] : [])];
  return applyDecorators(...decorators, ApiErrors(...statuses));
}
