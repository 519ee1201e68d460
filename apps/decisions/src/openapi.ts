import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily, ToolErrorCodes } from '@arbiter/platform';
import { DecisionTableErrors } from './decision-tables/errors';

/** Every code the decisions service answers with, in its `{ error, code, traceId }` body. */
export const DecisionsErrorFamily = defineErrorFamily({
  name: 'DecisionsError',
  envelope: 'trace',
  description: 'A decisions-service failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [AuthErrorCodes, ToolErrorCodes, DecisionTableErrors],
});
