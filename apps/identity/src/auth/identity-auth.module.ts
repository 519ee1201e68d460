import { AuthModule, parseApiKeyConfig, SERVICE_KEY_TENANT } from '@arbiter/auth';
import { Configuration, ENVIRONMENT, EnvironmentName } from '@arbiter/platform';
import { DynamicModule, Global, Module } from '@nestjs/common';
import { createCrudController, CrudRepository, CrudService, CrudWriteHooks } from '../crud';
import { createSecretProvider, SecretProvider } from '../secrets';
import { IdentityAuthSettings, IdentityHostSettings, TokenSettings, VaultSettings } from '../settings';
import { createAuthController, JwksController } from './auth.controller';
import { AuthService } from './auth.service';
import { GrantPolicy } from './grant-policy';
import { IdentityWriteHooks } from './identity-write-hooks';
import { ROLE_DEFINITION, userDefinition } from './user-role-crud';
import { KeyStore } from './key-store';
import { LoginThrottle } from './login-throttle';
import { PasswordHasher } from './password-hasher';
import { AuthAuditRepository } from './persistence/auth-audit.repository';
import { LoginAttemptRepository } from './persistence/login-attempt.repository';
import { RefreshTokenRepository } from './persistence/refresh-token.repository';
import { RevokedTokenRepository } from './persistence/revoked-token.repository';
import { RoleRepository } from './persistence/role.repository';
import { SigningKeyRepository } from './persistence/signing-key.repository';
import { UserRepository } from './persistence/user.repository';
import { REVOCATIONS_READ_ALL, RevocationStore } from './revocation-store';
import { TokenService } from './token.service';

/** Keys and the denylist store, global so the auth guard's factory can use them. */
@Global()
@Module({
  providers: [
    {
      provide: SecretProvider,
      inject: [VaultSettings, Configuration],
      useFactory: (vault: VaultSettings, configuration: Configuration) =>
        createSecretProvider(vault, configuration),
    },
    SigningKeyRepository,
    RevokedTokenRepository,
    KeyStore,
    RevocationStore,
  ],
  exports: [SecretProvider, KeyStore, RevocationStore, RevokedTokenRepository],
})
export class IdentityKeysModule {}

/**
 * Token authentication in identity: the guard verifies with identity's own key store (no HTTP round
 * trip) and loads the denylist from its own table; controllers for auth, JWKS and the generic CRUD.
 */
@Module({})
export class IdentityAuthModule {
  static register(apiVersion: string): DynamicModule {
    const version = /^\d+$/.test(apiVersion.trim()) ? apiVersion.trim() : '1';
    const users = { provide: 'CRUD_USERS', inject: [PasswordHasher], useFactory: userDefinition };
    return {
      module: IdentityAuthModule,
      imports: [
        IdentityKeysModule,
        AuthModule.forRoot({
          inject: [
            KeyStore,
            RevocationStore,
            TokenSettings,
            IdentityAuthSettings,
            IdentityHostSettings,
            ENVIRONMENT,
          ],
          useFactory: (
            keys: KeyStore,
            revocations: RevocationStore,
            tokens: TokenSettings,
            auth: IdentityAuthSettings,
            host: IdentityHostSettings,
            environment: EnvironmentName,
          ) => ({
            service: 'identity',
            environment,
            enabled: true,
            tokens: {
              resolver: keys,
              issuer: tokens.issuer,
              audience: tokens.audience,
              clockToleranceSeconds: auth.clockToleranceSeconds,
            },
            revocationSource: revocations,
            revocationSourceLabel: 'auth_revoked_tokens',
            // the other services' keys: every tenant's denylist, nothing else
            apiKeys: parseApiKeyConfig(
              { [SERVICE_KEY_TENANT]: auth.serviceApiKeys },
              'IdentityAuth:ServiceApiKeys',
            ).map((entry) => ({
              ...entry,
              name: 'service',
              roles: ['Service'],
              permissions: [REVOCATIONS_READ_ALL],
            })),
            cookieName: tokens.enableCookieAuth ? tokens.cookieName : undefined,
            trustedOrigins: auth.trustedOrigins
              .split(',')
              .map((o) => o.trim())
              .filter(Boolean),
            publicPaths: ['/api/v1/info'],
            requireTenantClaim: host.multiTenantEnabled && host.requireTenantClaim,
          }),
        }),
      ],
      providers: [
        UserRepository,
        RoleRepository,
        RefreshTokenRepository,
        AuthAuditRepository,
        LoginAttemptRepository,
        CrudRepository,
        PasswordHasher,
        LoginThrottle,
        TokenService,
        GrantPolicy,
        { provide: CrudWriteHooks, useClass: IdentityWriteHooks },
        CrudService,
        AuthService,
        users,
      ],
      controllers: [
        createAuthController(version),
        JwksController,
        createCrudController(userDefinition(new PasswordHasher()), version),
        createCrudController(ROLE_DEFINITION, version),
      ],
    };
  }
}
