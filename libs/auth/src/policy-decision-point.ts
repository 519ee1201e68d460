import { AppError, type AuthenticatedUser } from '@arbiter/platform';
import type { PermissionRequirement, PolicyName } from './permissions';
import { AuthErrorCodes } from './token-verifier';

export interface PermissionQuestion {
  user: AuthenticatedUser;
  tenantId: string;
  permissions: PermissionRequirement[];
  policies: PolicyName[];
  method: string;
  path: string;
}

/** Decides permission questions; the default is the local role/permission check. */
export abstract class PermissionDecisionPoint {
  abstract decide(question: PermissionQuestion): Promise<boolean>;
}

/**
 * Delegation to an external policy decision point over HTTP: POSTs
 * `{ subject: { id, name, tenantId, roles, permissions }, tenantId, requirements, policies, action: { method, path } }`
 * and expects `{ allowed: boolean }`. Fails closed: an unreachable or malformed PDP answers 503.
 */
export class HttpPermissionDecisionPoint extends PermissionDecisionPoint {
  constructor(
    private readonly url: string,
    private readonly timeoutMs = 2_000,
    private readonly bearerToken?: string,
  ) {
    super();
  }

  async decide(q: PermissionQuestion): Promise<boolean> {
    let body: { allowed?: unknown };
    try {
      const response = await fetch(this.url, {
        method: 'POST',
        signal: AbortSignal.timeout(this.timeoutMs),
        headers: {
          'content-type': 'application/json',
          ...(this.bearerToken ? { authorization: `Bearer ${this.bearerToken}` } : {}),
        },
        body: JSON.stringify({
          subject: {
            id: q.user.id,
            name: q.user.name,
            tenantId: q.user.tenantId ?? q.tenantId,
            roles: q.user.roles,
            permissions: q.user.permissions,
          },
          tenantId: q.tenantId,
          requirements: q.permissions,
          policies: q.policies,
          action: { method: q.method, path: q.path },
        }),
      });
      if (!response.ok) throw new Error(`status ${response.status}`);
      body = (await response.json()) as { allowed?: unknown };
    } catch {
      throw new AppError(
        503,
        AuthErrorCodes.PolicyDecisionPointUnavailable,
        'The policy decision point did not answer',
      );
    }
    if (typeof body.allowed !== 'boolean') {
      throw new AppError(
        503,
        AuthErrorCodes.PolicyDecisionPointUnavailable,
        'The policy decision point gave no decision',
      );
    }
    return body.allowed;
  }
}
