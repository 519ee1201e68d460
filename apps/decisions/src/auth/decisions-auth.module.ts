import { AuthModule, jwksUrlOf, remoteVerification, SERVICE_KEY_TENANT } from '@arbiter/auth';
import { ENVIRONMENT, EnvironmentName, RuntimeLicenseCheck } from '@arbiter/platform';
import { Module } from '@nestjs/common';
import { JwtAuthenticationSettings } from '../settings';
import { DecisionsPermissions } from './decisions-permissions';

/**
 * Authentication for the decisions service: JWTs verified against identity's JWKS
 * (`Authentication:Jwt:Authority`) or API keys (`Authentication:ApiKeys`, `Authentication:ServiceApiKeys`). Every route except health,
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
        // A tenant's API key is that tenant's machine credential: `decisions.admin` in its tenant. A service
        // key (`Authentication:ServiceApiKeys` or `ApiKeys:*`, the control plane reading a tenant's tables) reads
        // (`decisions.viewer`) and may read this replica's metrics (`decision-tables.metrics`).
        const apiKeys = s.apiKeyEntries().map((entry) => ({
          ...entry,
          permissions:
            entry.tenantId === SERVICE_KEY_TENANT
              ? [DecisionsPermissions.Viewer, 'decision-tables.metrics']
              : [DecisionsPermissions.Admin],
        }));
        const authority = s.authority.trim();
        if (!authority && apiKeys.length === 0) {
          return {
            service: 'decisions',
            environment,
            enabled: false,
            disabledReason:
              'Authentication:AllowAnonymous is on and neither Authentication:Jwt:Authority nor Authentication:ApiKeys is configured',
            refuseCredentialsWhenDisabled: true,
          };
        }
        const remote = authority
          ? remoteVerification({
              jwksUrl: jwksUrlOf(authority),
              revocationsUrl: s.revocationsUrl,
              revocationsApiKey: s.revocationsApiKey,
            })
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
