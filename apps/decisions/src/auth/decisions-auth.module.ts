import { AuthModule, jwksUrlOf, parseApiKeyConfig, remoteVerification } from '@arbiter/auth';
import { ENVIRONMENT, EnvironmentName, RuntimeLicenseCheck } from '@arbiter/platform';
import { Module } from '@nestjs/common';
import { JwtAuthenticationSettings } from '../settings';

/**
 * Authentication for the decisions service: JWTs verified against identity's JWKS
 * (`Authentication:Jwt:Authority`) or API keys (`Authentication:ApiKeys`). Every route except health,
 * docs and routes marked `@Public()` needs one of them. Unconfigured, the service is open (Development
 * and Testing only; the settings refuse to start elsewhere) and says so loudly at startup.
 */
@Module({
  imports: [
    AuthModule.forRoot({
      // the license step of the pipeline (after authentication, before quota): `License:EnforceOnMiddleware`
      licenseCheck: RuntimeLicenseCheck,
      inject: [JwtAuthenticationSettings, ENVIRONMENT],
      useFactory: (s: JwtAuthenticationSettings, environment: EnvironmentName) => {
        const apiKeys = parseApiKeyConfig(s.apiKeys ?? {}, 'Authentication:ApiKeys');
        const authority = s.authority.trim();
        if (!authority && apiKeys.length === 0) {
          return {
            service: 'decisions',
            environment,
            enabled: false,
            disabledReason: 'neither Authentication:Jwt:Authority nor Authentication:ApiKeys is configured',
          };
        }
        const remote = authority
          ? remoteVerification({ jwksUrl: jwksUrlOf(authority), revocationsUrl: s.revocationsUrl })
          : undefined;
        return {
          service: 'decisions',
          environment,
          enabled: true,
          tokens: remote
            ? {
                resolver: remote.resolver,
                issuer: s.issuer,
                audience: s.audience,
                clockToleranceSeconds: s.clockToleranceSeconds,
              }
            : undefined,
          revocationSource: remote?.revocationSource,
          revocationSourceLabel: remote?.revocationSourceLabel,
          apiKeys,
          cookieName: s.cookieName.trim() || undefined,
        };
      },
    }),
  ],
})
export class DecisionsAuthModule {}
