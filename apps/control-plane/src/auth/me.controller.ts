import { AUTH_OPTIONS, AuthErrorCodes, AuthOptions, Policies, policiesOf } from '@arbiter/auth';
import { ApiErrorFamily, defineErrorFamily, RequestContext } from '@arbiter/platform';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiResponse, ApiTags } from '@nestjs/swagger';

/** `/me` answers only the platform's and the operator authentication's codes. */
export const OperatorErrorFamily = defineErrorFamily({
  name: 'OperatorError',
  envelope: 'trace',
  description: 'An operator route failure: `{ error, code, traceId }`.',
  codes: [AuthErrorCodes],
});

/** The current operator, as the control plane resolved and authorized the request. */
export class OperatorView {
  @ApiProperty({
    description: 'False while authorization is disabled (nobody is authenticated).',
    example: true,
  })
  authenticated!: boolean;

  @ApiProperty({ description: '`ControlPlaneAuth:DisableAuthorization` is false.', example: true })
  authorizationEnabled!: boolean;

  @ApiProperty({ type: 'string', nullable: true, description: "The token's subject.", example: 'op-1' })
  id!: string | null;

  @ApiProperty({
    description: 'The user name; while authorization is disabled, the actor resolved from the headers.',
    example: 'olivia',
  })
  name!: string;

  @ApiProperty({
    description: 'The resolved tenant (claim, then `x-tenant-id`, then `default`).',
    example: 'acme',
  })
  tenantId!: string;

  @ApiProperty({ type: 'string', isArray: true, example: ['Approver'] })
  roles!: string[];

  @ApiProperty({ type: 'string', isArray: true, example: ['rules.read'] })
  permissions!: string[];

  @ApiProperty({
    enum: Object.values(Policies),
    isArray: true,
    description:
      'The control-plane policies the operator holds (all of them while authorization is disabled).',
    example: ['cp.approver', 'cp.viewer'],
  })
  policies!: string[];

  @ApiProperty({ type: 'string', nullable: true, description: "The token's `jti`.", example: 'j-4f1c' })
  tokenId!: string | null;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: "The token's expiry.",
    example: '2026-03-02T10:35:00.000Z',
  })
  expiresAt!: string | null;
}

/** `GET /api/v1/control-plane/me`: the current operator (spec 1's /api/v1/control-plane routes; the body is ours). */
@ApiTags('operator')
@ApiErrorFamily(OperatorErrorFamily)
@Controller('api/v1/control-plane/me')
export class MeController {
  constructor(@Inject(AUTH_OPTIONS) private readonly options: AuthOptions) {}

  @Get()
  @ApiOperation({
    summary: 'The current operator: identity, tenant, roles and policies',
    description:
      'Any authenticated operator (no policy). While authorization is disabled, nobody is authenticated ' +
      'and every policy is granted; tenant and actor still come from the headers.',
  })
  @ApiOkResponse({ type: OperatorView, description: 'The current operator' })
  @ApiResponse({ status: 400, description: 'Bad request: `INVALID_TENANT_ID` (a malformed `x-tenant-id`)' })
  me(): OperatorView {
    const context = RequestContext.current();
    const user = context?.user;
    if (!this.options.enabled || !user) {
      // Authorization disabled: nobody is authenticated and nothing is refused.
      return {
        authenticated: false,
        authorizationEnabled: this.options.enabled,
        id: null,
        name: RequestContext.actor(),
        tenantId: RequestContext.tenantId(),
        roles: [],
        permissions: [],
        policies: this.options.enabled ? [] : Object.values(Policies),
        tokenId: null,
        expiresAt: null,
      };
    }
    const exp = typeof user.claims.exp === 'number' ? new Date(user.claims.exp * 1000).toISOString() : null;
    return {
      authenticated: true,
      authorizationEnabled: true,
      id: user.id,
      name: user.name,
      tenantId: RequestContext.tenantId(),
      roles: user.roles,
      permissions: user.permissions,
      policies: policiesOf(user),
      tokenId: user.tokenId ?? null,
      expiresAt: exp,
    };
  }
}
