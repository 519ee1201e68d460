import type { ErrorBody, ExperienceErrorBody, HostedEnvelope } from '@arbiter/contracts';
import { FieldProblem } from './app-error';

/** A failure normalised before it is written in the family's envelope. */
export interface Problem {
  status: number;
  code: string;
  message: string;
  traceId: string;
  details?: FieldProblem[];
}

/** Renders a problem as the body of one envelope family. */
export type EnvelopeWriter = (problem: Problem) => unknown;

/** `{ error, code, traceId }` (decisions; also chosen for the control plane), plus `details` on validation. */
export const traceEnvelope: EnvelopeWriter = (p): ErrorBody => ({
  error: p.message,
  code: p.code,
  traceId: p.traceId,
  ...(p.details?.length ? { details: p.details } : {}),
});

/** `{ isSuccess, result, errors: [{ code, message }], timestamp }` (identity's hosted endpoints). */
export const hostedEnvelope: EnvelopeWriter = (p): HostedEnvelope => ({
  isSuccess: false,
  result: null,
  errors: p.details?.length
    ? p.details.map((d) => ({ code: p.code, message: `${d.field}: ${d.message}` }))
    : [{ code: p.code, message: p.message }],
  timestamp: new Date().toISOString(),
});

/** `{ error, code, timestamp }` (experience service). */
export const experienceEnvelope: EnvelopeWriter = (p): ExperienceErrorBody => ({
  error: p.details?.length
    ? `${p.message}: ${p.details.map((d) => `${d.field} ${d.message}`).join('; ')}`
    : p.message,
  code: p.code,
  timestamp: new Date().toISOString(),
});

/** Picks the envelope for a request path: a service may host several families (identity does). */
export type EnvelopeSelector = (path: string) => EnvelopeWriter;
