import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily } from '@arbiter/platform';
import { AuthErrors } from './auth/auth-errors';

/** Every code identity's hosted endpoints answer with, in the `{ isSuccess, result, errors, timestamp }` body. */
export const IdentityErrorFamily = defineErrorFamily({
  name: 'IdentityError',
  envelope: 'hosted',
  description:
    'An identity failure in the hosted envelope: `isSuccess: false`, `result: null`, one or more `errors`.',
  codes: [AuthErrorCodes, AuthErrors],
});
