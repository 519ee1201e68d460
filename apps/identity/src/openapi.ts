import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily } from '@arbiter/platform';
import { AuthErrors } from './auth/auth-errors';
import { CrudErrors } from './crud/crud-errors';

/** Every code identity's hosted endpoints answer with, in the `{ isSuccess, result, errors, timestamp }` body. */
export const IdentityErrorFamily = defineErrorFamily({
  name: 'IdentityError',
  envelope: 'hosted',
  description:
    'An identity failure in the hosted envelope: `isSuccess: false`, `result: null`, one or more `errors`.',
  codes: [AuthErrorCodes, AuthErrors, CrudErrors],
});

/** The tags of identity's operations, as the document describes them. */
export const IDENTITY_TAGS = [
  {
    name: 'auth',
    description:
      'Token authentication (spec 3 part B): register, login, refresh, logout, permissions, the UI manifest, ' +
      'the denylist, signing keys and the JWKS. Answers are in the hosted envelope `{ isSuccess, result, ' +
      'errors, timestamp }`, except the plain JWKS.',
  },
  {
    name: 'users',
    description: "The tenant's users (generic CRUD): paged list, get, create, partial update, soft delete.",
  },
  {
    name: 'roles',
    description: "The tenant's roles and the permission keys they grant (generic CRUD).",
  },
  { name: 'health', description: 'Readiness and liveness probes.' },
];
