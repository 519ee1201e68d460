import { AuthModule, HttpPermissionDecisionPoint, remoteVerification } from '@arbiter/auth';
import { ENVIRONMENT, EnvironmentName, RuntimeLicenseCheck } from '@arbiter/platform';
import { Module } from '@nestjs/common';
import { ControlPlaneAuthSettings } from './control-plane-auth.settings';
import { MeController } from './me.controller';

/**
 * Operator authentication (`ControlPlaneAuth:*`): off by default as the spec says (tenant and actor
 * from headers, a loud warning outside Development); on, tokens are verified against identity's JWKS
 * (`JwksUrl`) or a configured key (`SigningKey`), with `Issuer` and `Audience`, and revoked tokens are
 * refused (denylist from identity's revocation endpoint plus bus events).
 */
@Module({
  imports: [
    AuthModule.forRoot({
      // the license step of the pipeline (after authentication, before quota): `License:EnforceOnMiddleware`
      licenseCheck: RuntimeLicenseCheck,
      inject: [ControlPlaneAuthSettings, ENVIRONMENT],
      useFactory: (s: ControlPlaneAuthSettings, environment: EnvironmentName) => {
        if (s.disableAuthorization) {
          return {
            service: 'control-plane',
            environment,
            enabled: false,
            disabledReason: 'ControlPlaneAuth:DisableAuthorization=true',
          };
        }
        const remote = remoteVerification({
          jwksUrl: s.jwksUrl,
          signingKey: s.signingKey,
          signingKeyId: s.signingKeyId,
          revocationsUrl: s.revocationsUrl,
          revocationsApiKey: s.revocationsApiKey,
        });
        return {
          service: 'control-plane',
          environment,
          enabled: true,
          tokens: {
            resolver: remote.resolver,
            issuer: s.issuer,
            audience: s.audience,
            clockToleranceSeconds: s.clockToleranceSeconds,
          },
          revocationSource: remote.revocationSource,
          revocationSourceLabel: remote.revocationSourceLabel,
          decisionPoint: s.policyDecisionPointUrl.trim()
            ? new HttpPermissionDecisionPoint(s.policyDecisionPointUrl.trim(), s.policyDecisionPointTimeoutMs)
            : undefined,
          publicPaths: ['/api/v1/info'],
        };
      },
    }),
  ],
  controllers: [MeController],
})
export class ControlPlaneAuthModule {}
