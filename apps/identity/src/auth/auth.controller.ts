import { CurrentUser, grants, Public, PUBLIC_KEY, RequirePermissions } from '@arbiter/auth';
import {
  ApiErrors,
  AppError,
  AuthenticatedUser,
  ENVIRONMENT,
  EnvironmentName,
  ERROR_FAMILY_REF,
  isDevelopmentOrTesting,
  RequestContext,
} from '@arbiter/platform';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  SetMetadata,
  Type,
} from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import { ApiErrorResponse, HostedEnvelopeOf, hostedExample, ok, SavedEntryOf } from '../crud';
import { TokenSettings } from '../settings';
import { AuthService } from './auth.service';
import { AuthErrors } from './auth-errors';
import { LoginDto, readRefreshToken, RefreshTokenDto, RegisterDto, UiManifestQuery } from './dto';
import {
  LOGIN_EXAMPLE,
  REFRESH_EXAMPLE,
  REGISTER_EXAMPLE,
  REGISTERED_USER_EXAMPLE,
  TOKEN_PAIR_EXAMPLE,
  USER_PERMISSIONS_EXAMPLE,
} from './examples';
import { KeyStore } from './key-store';
import { CreateRoleDto, RoleView, UserView } from './user-role-crud';
import { REVOCATIONS_READ_ALL, RevocationStore } from './revocation-store';
import { TokenPair, TokenService } from './token.service';
import {
  JsonWebKeySetView,
  KeyRotationView,
  LogoutView,
  RevocationListView,
  TokenPairView,
  UiManifestView,
  UiRoutingManifestView,
  UserPermissionsView,
} from './views';

function bearer(req: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const value = req.headers.authorization;
  const text = Array.isArray(value) ? value[0] : value;
  const match = /^Bearer\s+(\S+)$/i.exec(text?.trim() ?? '');
  return match?.[1];
}

/**
 * Anonymous for the guard, which would refuse the expired access token refresh needs (the route checks
 * it itself), yet documented with the bearer scheme: a client must send that token.
 */
const AnonymousWithExpiredBearer = () => SetMetadata(PUBLIC_KEY, true);

/** `x-tenant-id` on the anonymous routes: the tenant the user belongs to (the token carries it later). */
const TenantHeader = ApiHeader({
  name: 'x-tenant-id',
  required: false,
  description: "The user's tenant (default: `default`). 1-128 letters, digits or . _ : @ -",
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:@-]{1,128}$' },
});

const SET_COOKIE = {
  'Set-Cookie': {
    description:
      'With `TokenConfigs:EnableCookieAuth`: the access token in an HttpOnly cookie (`TokenConfigs:CookieName`)',
    schema: { type: 'string' },
  },
};

const TOKEN_PAIR = HostedEnvelopeOf(TokenPairView);

/** The token endpoints of spec 3 part B at `api/v{ApiVersioning:DefaultApiVersion}/auth`. */
export function createAuthController(version: string): Type<unknown> {
  @ApiTags('auth')
  @Controller(`api/v${version}/auth`)
  class AuthController {
    constructor(
      @Inject(AuthService) readonly auth: AuthService,
      @Inject(TokenService) readonly tokens: TokenService,
      @Inject(KeyStore) readonly keys: KeyStore,
      @Inject(RevocationStore) readonly revocations: RevocationStore,
      @Inject(TokenSettings) readonly settings: TokenSettings,
      @Inject(ENVIRONMENT) readonly environment: EnvironmentName,
    ) {}

    /** With `EnableCookieAuth`, the access token also goes into an HttpOnly cookie. */
    setCookie(reply: any, pair: TokenPair | null) {
      const s = this.settings;
      if (!s.enableCookieAuth) return;
      // Secure outside Development and Testing (the resolved environment, not NODE_ENV), and always
      // with SameSite=None (browsers drop a None cookie without it).
      const secure = s.cookieSameSite === 'None' || !isDevelopmentOrTesting(this.environment);
      const parts = pair
        ? [`${s.cookieName}=${encodeURIComponent(pair.AccessToken)}`, `Max-Age=${pair.ExpiresIn}`]
        : [`${s.cookieName}=`, 'Max-Age=0'];
      parts.push('Path=/', 'HttpOnly', `SameSite=${s.cookieSameSite}`);
      if (secure) parts.push('Secure');
      reply.header('set-cookie', parts.join('; '));
    }

    @Post('register')
    @Public()
    @HttpCode(201)
    @ApiOperation({
      summary: 'Register a user (self-registration)',
      description:
        'Creates an active user without roles in the tenant of `x-tenant-id`. Refused with 403 ' +
        '`REGISTRATION_DISABLED` when `IdentityAuth:AllowSelfRegistration` is off (the default outside ' +
        'Development), and with 403 `TENANT_CLOSED` when the tenant already has users and is not listed in ' +
        '`IdentityAuth:SelfRegistrationTenants`; a password shorter than `IdentityAuth:MinPasswordLength` is 400.',
    })
    @TenantHeader
    @ApiBody({ type: RegisterDto, examples: { alice: { summary: 'A new user', value: REGISTER_EXAMPLE } } })
    @ApiCreatedResponse({
      description: 'The user as stored',
      type: HostedEnvelopeOf(SavedEntryOf(UserView)),
      example: hostedExample(REGISTERED_USER_EXAMPLE),
    })
    @ApiErrorResponse(
      403,
      `Self-registration is disabled (\`${AuthErrors.RegistrationDisabled}\`), or the tenant has users ` +
        `and is not open to it (\`${AuthErrors.TenantClosed}\`)`,
    )
    @ApiErrorResponse(409, `The user name is taken in the tenant (\`${AuthErrors.UserNameTaken}\`)`)
    async register(@Body() dto: RegisterDto) {
      return ok(await this.auth.register(dto));
    }

    @Post('login')
    @Public()
    @HttpCode(200)
    @ApiOperation({
      summary: 'Log in: an access token and a refresh token',
      description:
        'Checks the user name (or e-mail) and password in the tenant of `x-tenant-id`. After ' +
        '`IdentityAuth:LoginMaxFailures` failures the name is locked out for a while (429 with Retry-After, ' +
        'even with the right password).',
    })
    @TenantHeader
    @ApiBody({
      type: LoginDto,
      examples: { alice: { summary: 'User name and password', value: LOGIN_EXAMPLE } },
    })
    @ApiOkResponse({
      description: 'The token pair',
      type: TOKEN_PAIR,
      headers: SET_COOKIE,
      example: hostedExample(TOKEN_PAIR_EXAMPLE),
    })
    @ApiTooManyRequestsResponse({
      description: 'Locked out after repeated failures (`RATE_LIMITED`)',
      headers: {
        'Retry-After': { description: 'Seconds until the lockout ends', schema: { type: 'integer' } },
      },
      schema: { $ref: ERROR_FAMILY_REF },
    })
    @ApiErrorResponse(
      401,
      `Unknown user, wrong password or inactive account (\`${AuthErrors.InvalidCredentials}\`)`,
    )
    async login(@Body() dto: LoginDto, @Req() req: any, @Res({ passthrough: true }) reply: any) {
      const pair = await this.auth.login(
        dto.userName,
        dto.password,
        String(req.ip ?? req.socket?.remoteAddress ?? ''),
      );
      this.setCookie(reply, pair);
      return ok(pair);
    }

    @Post('refresh-token')
    @AnonymousWithExpiredBearer()
    @HttpCode(200)
    @ApiOperation({
      summary: 'Refresh: a new token pair for the last one',
      description:
        'Send the last access token as bearer, expired (a live one is 401 `ACCESS_TOKEN_NOT_EXPIRED` unless it ' +
        'expires within `IdentityAuth:RefreshEarlySeconds`), but not more than `TokenConfigs:RefreshTokenEim` ' +
        'minutes ago, and its refresh token in the body. The refresh token ' +
        'rotates: using one a second time is 401 `REFRESH_TOKEN_REUSED` and revokes the whole session.',
    })
    @ApiBody({
      type: RefreshTokenDto,
      examples: { refresh: { summary: 'The refresh token of the last pair', value: REFRESH_EXAMPLE } },
    })
    @ApiOkResponse({
      description: 'The new token pair',
      type: TOKEN_PAIR,
      headers: SET_COOKIE,
      example: hostedExample(TOKEN_PAIR_EXAMPLE),
    })
    @ApiErrorResponse(
      401,
      `No, a forged or a too old access token, or an unknown, revoked or expired refresh token ` +
        `(\`${AuthErrors.RefreshTokenInvalid}\`, \`TOKEN_…\`); a reused one (\`${AuthErrors.RefreshTokenReused}\`); ` +
        `an access token that has not expired (\`${AuthErrors.AccessTokenNotExpired}\`)`,
    )
    async refresh(@Body() dto: RefreshTokenDto, @Req() req: any, @Res({ passthrough: true }) reply: any) {
      const pair = await this.tokens.refresh(bearer(req), readRefreshToken(dto.refreshToken));
      this.setCookie(reply, pair);
      return ok(pair);
    }

    @Post('logout')
    @HttpCode(200)
    @ApiOperation({
      summary: 'Log out: revoke the presented token and its session',
      description:
        'Revokes the access token and every token of its refresh family; every service refuses them ' +
        'within a second. A caller authenticated with an API key gets 400 `NOT_A_TOKEN`.',
    })
    @ApiOkResponse({
      description: 'The revoked token ids',
      type: HostedEnvelopeOf(LogoutView),
      headers: SET_COOKIE,
    })
    @ApiErrorResponse(400, `The caller is authenticated with an API key (\`${AuthErrors.NotAToken}\`)`)
    async logout(@CurrentUser() user: AuthenticatedUser, @Res({ passthrough: true }) reply: any) {
      if (!user?.tokenId) throw AppError.badRequest(AuthErrors.NotAToken, 'Logout needs an access token');
      const result = await this.tokens.logout(user.claims);
      this.setCookie(reply, null);
      return ok(result);
    }

    @Post('create-role')
    @HttpCode(201)
    @RequirePermissions('Roles.Create')
    @ApiOperation({
      summary: 'Create a role',
      description: 'Needs `Roles.Create` (the same as `POST /roles`).',
    })
    @ApiBody({ type: CreateRoleDto })
    @ApiCreatedResponse({ description: 'The role as stored', type: HostedEnvelopeOf(SavedEntryOf(RoleView)) })
    @ApiErrorResponse(409, `A role with this name exists in the tenant (\`${AuthErrors.RoleExists}\`)`)
    async createRole(@Body() dto: CreateRoleDto) {
      return ok(await this.auth.createRole(dto));
    }

    @Get('user-permissions/:userId')
    @ApiOperation({
      summary: "A user's roles and effective permissions",
      description: "Your own, or any user's with `Users.View`.",
    })
    @ApiParam({
      name: 'userId',
      description:
        "The user's id (the `sub` of its tokens); any other value than an existing user's UUID is 404",
      schema: { type: 'string', format: 'uuid' },
      example: USER_PERMISSIONS_EXAMPLE.userId,
    })
    @ApiOkResponse({
      description: "The user's permissions",
      type: HostedEnvelopeOf(UserPermissionsView),
      example: hostedExample(USER_PERMISSIONS_EXAMPLE),
    })
    @ApiErrorResponse(404, `No such active user in the tenant (\`${AuthErrors.UserNotFound}\`)`)
    async userPermissions(@Param('userId') userId: string, @CurrentUser() user: AuthenticatedUser) {
      return ok(await this.auth.userPermissions(userId, user));
    }

    @Get('ui-engine/current')
    @ApiOperation({
      summary: 'The UI manifest of the caller',
      description:
        "The screens of every service the caller's permissions and policies allow; `minimalFor=routing` " +
        'answers only the routes (`UiRoutingManifestView`) instead of the entries (`UiManifestView`).',
    })
    @ApiOkResponse({
      description: 'The manifest (or its routing projection)',
      type: HostedEnvelopeOf([UiManifestView, UiRoutingManifestView], 'UiManifestEnvelope'),
    })
    @ApiErrors(400)
    uiManifest(@Query() query: UiManifestQuery, @CurrentUser() user: AuthenticatedUser) {
      return ok(this.auth.uiManifest(user, query.minimalFor));
    }

    /** The current denylist (ids of revoked, still-unexpired tokens): a service key's, or the caller's tenant's. */
    @Get('revocations')
    @ApiOperation({
      summary: 'The denylist: revoked tokens not expired yet',
      description:
        'What the other services load at startup (and resync from) before applying the revocation events, ' +
        'with a service key (`X-Api-Key`, `IdentityAuth:ServiceApiKeys`): every tenant. Any other caller gets ' +
        "its own tenant's entries only.",
    })
    @ApiOkResponse({ description: 'The revoked token ids', type: HostedEnvelopeOf(RevocationListView) })
    @ApiErrors(400)
    async revocationList(@CurrentUser() user: AuthenticatedUser) {
      const all = grants(user.permissions, REVOCATIONS_READ_ALL);
      return ok({
        items: all
          ? await this.revocations.list()
          : await this.revocations.listForTenant(user.tenantId ?? RequestContext.tenantId()),
      });
    }

    /** Rotates a generated signing key (needs `SigningKeys.Rotate`). */
    @Post('keys/rotate')
    @HttpCode(200)
    @RequirePermissions('SigningKeys.Rotate')
    @ApiOperation({
      summary: 'Rotate the generated signing key',
      description:
        'Needs `SigningKeys.Rotate`. The new key is published in the JWKS at once and signs, on every replica, ' +
        'from `activatesAt` (`IdentityAuth:KeyPublishDelaySeconds` later); the old key signs until then and ' +
        'stays published while its tokens live, so tokens signed before stay valid. While a rotation is ' +
        'pending, asking again (on any replica) answers that same rotation. A key from configuration is ' +
        'rotated by configuration: 409 `KEYS_CONFIGURED`.',
    })
    @ApiOkResponse({
      description: 'The new and the previous key id, and when the new one starts signing',
      type: HostedEnvelopeOf(KeyRotationView),
    })
    @ApiErrorResponse(
      409,
      `The signing key comes from configuration: rotate it there (\`${AuthErrors.KeysConfigured}\`)`,
    )
    async rotate() {
      return ok(await this.keys.rotate());
    }
  }
  return AuthController;
}

/** `GET /.well-known/jwks.json`: public keys (plain JWKS, not enveloped: JOSE clients read it as is). */
@ApiTags('auth')
@Controller('.well-known')
export class JwksController {
  constructor(@Inject(KeyStore) private readonly keys: KeyStore) {}

  @Get('jwks.json')
  @Public()
  @ApiOperation({
    summary: 'The public keys that verify access tokens (JWKS)',
    description:
      'Plain RFC 7517 key set, not enveloped. Current keys and retired ones whose last token has not expired ' +
      'yet; empty when tokens are signed with a shared secret (`TokenConfigs:UseRsa` false).',
  })
  @ApiOkResponse({ description: 'The key set', type: JsonWebKeySetView })
  @ApiErrors(400)
  publicKeys() {
    return this.keys.jwks();
  }
}
