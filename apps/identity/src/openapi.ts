import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily } from '@arbiter/platform';
import { AuthErrors } from './auth/auth-errors';
import { CrudErrors } from './crud/crud-errors';
import { ExperienceErrors } from './experience/experience-errors';
import { LicenseErrors } from './license/license-errors';

/** Every code identity's hosted endpoints answer with, in the `{ isSuccess, result, errors, timestamp }` body. */
export const IdentityErrorFamily = defineErrorFamily({
  name: 'IdentityError',
  envelope: 'hosted',
  description:
    'An identity failure in the hosted envelope: `isSuccess: false`, `result: null`, one or more `errors`.',
  codes: [AuthErrorCodes, AuthErrors, CrudErrors, LicenseErrors],
});

/** The experience service's codes, in its `{ error, code, timestamp }` body. */
export const ExperienceErrorFamily = defineErrorFamily({
  name: 'ExperienceError',
  envelope: 'experience',
  description: 'An experience service failure: `{ error, code, timestamp }`.',
  codes: [ExperienceErrors],
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
  {
    name: 'license',
    description:
      'License server (spec 3 part A): keys, activation proofs, validation, heartbeats, revocation snapshot, ' +
      'assembly whitelist, signing keys. Admin routes need `X-Admin-Api-Key`; answers are in the hosted ' +
      'envelope, except the plain key set.',
  },
  {
    name: 'experience',
    description:
      'Experience service (spec 3 part C): lessons served before a tool call, outcomes judged after it, ' +
      'extraction, evolution, routing, principles. Bearer `serverAuthToken` when configured; 100 requests a ' +
      'minute per address, 500 with the token; errors `{ error, code, timestamp }`.',
  },
  { name: 'health', description: 'Readiness and liveness probes.' },
];
