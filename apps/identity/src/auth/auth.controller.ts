import { CurrentUser, Public, RequirePermissions } from '@arbiter/auth';
import { AppError, AuthenticatedUser } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res, Type } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ok } from '../crud';
import { TokenSettings } from '../settings';
import { AuthService } from './auth.service';
import { AuthErrors } from './auth-errors';
import { LoginDto, readRefreshToken, RefreshTokenDto, RegisterDto, UiManifestQuery } from './dto';
import { KeyStore } from './key-store';
import { CreateRoleDto } from './user-role-crud';
import { RevocationStore } from './revocation-store';
import { TokenPair, TokenService } from './token.service';

function bearer(req: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const value = req.headers.authorization;
  const text = Array.isArray(value) ? value[0] : value;
  const match = /^Bearer\s+(\S+)$/i.exec(text?.trim() ?? '');
  return match?.[1];
}

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
    ) {}

    /** With `EnableCookieAuth`, the access token also goes into an HttpOnly cookie. */
    setCookie(reply: any, pair: TokenPair | null) {
      const s = this.settings;
      if (!s.enableCookieAuth) return;
      const secure = s.cookieSameSite === 'None' || process.env.NODE_ENV === 'production';
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
    async register(@Body() dto: RegisterDto) {
      return ok(await this.auth.register(dto));
    }

    @Post('login')
    @Public()
    @HttpCode(200)
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
    @Public()
    @HttpCode(200)
    async refresh(@Body() dto: RefreshTokenDto, @Req() req: any, @Res({ passthrough: true }) reply: any) {
      const pair = await this.tokens.refresh(bearer(req), readRefreshToken(dto.refreshToken));
      this.setCookie(reply, pair);
      return ok(pair);
    }

    @Post('logout')
    @ApiBearerAuth()
    @HttpCode(200)
    async logout(@CurrentUser() user: AuthenticatedUser, @Res({ passthrough: true }) reply: any) {
      if (!user?.tokenId) throw AppError.badRequest(AuthErrors.NotAToken, 'Logout needs an access token');
      const result = await this.tokens.logout(user.claims);
      this.setCookie(reply, null);
      return ok(result);
    }

    @Post('create-role')
    @ApiBearerAuth()
    @HttpCode(201)
    @RequirePermissions('Roles.Create')
    async createRole(@Body() dto: CreateRoleDto) {
      return ok(await this.auth.createRole(dto));
    }

    @Get('user-permissions/:userId')
    @ApiBearerAuth()
    async userPermissions(@Param('userId') userId: string, @CurrentUser() user: AuthenticatedUser) {
      return ok(await this.auth.userPermissions(userId, user));
    }

    @Get('ui-engine/current')
    @ApiBearerAuth()
    uiManifest(@Query() query: UiManifestQuery, @CurrentUser() user: AuthenticatedUser) {
      return ok(this.auth.uiManifest(user, query.minimalFor));
    }

    /** Service-to-service: the current denylist (ids of revoked, still-unexpired tokens). */
    @Get('revocations')
    @Public()
    async revocationList() {
      return ok({ items: await this.revocations.list() });
    }

    /** Rotates a generated signing key (needs `SigningKeys.Rotate`). */
    @Post('keys/rotate')
    @ApiBearerAuth()
    @HttpCode(200)
    @RequirePermissions('SigningKeys.Rotate')
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
  jwks() {
    return this.keys.jwks();
  }
}
