import { AUTH_OPTIONS, AuthOptions, Policies, policiesOf } from '@arbiter/auth';
import { RequestContext } from '@arbiter/platform';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';

/** `GET /api/v1/control-plane/me`: the current operator (spec 1's /api/v1/control-plane routes; the body is ours). */
@ApiTags('operator')
@ApiBearerAuth()
@Controller('api/v1/control-plane/me')
export class MeController {
  constructor(@Inject(AUTH_OPTIONS) private readonly options: AuthOptions) {}

  @Get()
  @ApiOkResponse({
    description:
      '{ authenticated, authorizationEnabled, id, name, tenantId, roles, permissions, policies, tokenId, expiresAt }',
  })
  me() {
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
