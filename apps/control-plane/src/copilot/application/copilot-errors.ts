import { AuthErrorCodes } from '@arbiter/auth';
import { AppError, defineErrorFamily, FieldProblem } from '@arbiter/platform';
import { RuleSetErrors } from '../../rulesets';
import { RequestParamErrors } from '../../shared';

/** Stable `code` values of the copilot routes (listed in the README). */
export const CopilotErrors = {
  /** No model is configured (`Copilot:BaseUrl` empty): 503. */
  NotConfigured: 'COPILOT_NOT_CONFIGURED',
  /** The model endpoint failed, timed out or answered a non-2xx status: 502. */
  ModelUnavailable: 'COPILOT_MODEL_UNAVAILABLE',
  /** The model answered something that is not a JSON object (or refused): 502. */
  InvalidModelAnswer: 'COPILOT_INVALID_MODEL_ANSWER',
  /** The model's rule set fails the document validation or cannot be compiled: 502, `details` the problems. */
  InvalidDraft: 'COPILOT_INVALID_DRAFT',
  /** The draft does not give the outcomes the author's examples expect: 422, `details` per example. */
  ExamplesFailed: 'COPILOT_EXAMPLES_FAILED',
  /** The version has no provenance row (it was not drafted by the copilot): 404 on reads, 409 on discard/revise. */
  ProvenanceNotFound: 'PROVENANCE_NOT_FOUND',
  NotACopilotDraft: 'NOT_A_COPILOT_DRAFT',
  /** Discard of a draft that was submitted for approval at some point: 409. */
  DraftWasSubmitted: 'DRAFT_WAS_SUBMITTED',
} as const;

/** The errors of the copilot routes: its codes, the rule set codes, request parameters, authentication. */
export const CopilotErrorFamily = defineErrorFamily({
  name: 'CopilotError',
  envelope: 'trace',
  description:
    'A copilot route failure: `{ error, code, traceId }`, with `details` (the rule set problems or the ' +
    'failed examples) where given.',
  codes: [CopilotErrors, RuleSetErrors, RequestParamErrors, AuthErrorCodes],
});

export const copilotNotConfigured = () =>
  new AppError(
    503,
    CopilotErrors.NotConfigured,
    'No drafting model is configured (set Copilot:BaseUrl and Copilot:Model)',
  );

export const modelUnavailable = (why: string) =>
  new AppError(502, CopilotErrors.ModelUnavailable, `The drafting model did not answer: ${why}`);

export const invalidModelAnswer = (why: string) =>
  new AppError(502, CopilotErrors.InvalidModelAnswer, `The drafting model's answer is unusable: ${why}`);

export const invalidDraft = (message: string, details: FieldProblem[]) =>
  new AppError(502, CopilotErrors.InvalidDraft, `The drafted rule set is invalid: ${message}`, details);

export const examplesFailed = (failed: number, total: number, details: FieldProblem[]) =>
  AppError.unprocessable(
    CopilotErrors.ExamplesFailed,
    `The drafted rule set fails ${failed} of ${total} example(s); nothing was saved`,
    details,
  );

export const provenanceNotFound = (workflow: string, version: number) =>
  AppError.notFound(
    CopilotErrors.ProvenanceNotFound,
    `Version ${version} of '${workflow}' has no copilot provenance (it was not drafted by the copilot)`,
  );

export const notACopilotDraft = (workflow: string, version: number) =>
  AppError.conflict(
    CopilotErrors.NotACopilotDraft,
    `Version ${version} of '${workflow}' was not drafted by the copilot`,
  );

export const draftWasSubmitted = (workflow: string, version: number) =>
  AppError.conflict(
    CopilotErrors.DraftWasSubmitted,
    `Version ${version} of '${workflow}' was submitted for approval before; only a never-submitted draft is discarded`,
  );
