import {
  ConfigKey,
  ConfigurationError,
  EnvironmentName,
  isDevelopmentOrTesting,
  StartupRules,
} from '@arbiter/platform';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CATALOG_SETTINGS } from '../catalog/catalog.settings';
import { EXECUTION_AUDIT_SETTINGS } from '../execution-audit/execution-audit.settings';
import { QUOTA_SETTINGS } from '../quotas/quotas.settings';

/** `ConnectionStrings:*`: the database is required, the cache (NATS) optional. */
export class ConnectionStringsSettings implements StartupRules {
  @ConfigKey('ConnectionStrings:RuleControlPlaneDb')
  @IsString()
  ruleControlPlaneDb = '';

  @ConfigKey('ConnectionStrings:Cache')
  @IsString()
  cache = '';

  assertStartupRules(): void {
    if (!this.ruleControlPlaneDb.trim()) {
      throw new ConfigurationError('ConnectionStrings:RuleControlPlaneDb is required and is empty', [
        'ConnectionStrings:RuleControlPlaneDb',
      ]);
    }
  }
}

/** `RuleControlPlane:*`: maker-checker, notifications, canary, signed audit. */
export class RuleControlPlaneSettings implements StartupRules {
  @ConfigKey('RuleControlPlane:RequireApproval')
  @IsBoolean()
  requireApproval = true;

  @ConfigKey('RuleControlPlane:NotifyOnStateChange')
  @IsBoolean()
  notifyOnStateChange = true;

  @ConfigKey('RuleControlPlane:EnableCanary')
  @IsBoolean()
  enableCanary = true;

  @ConfigKey('RuleControlPlane:AuditSignerKeyId')
  @IsString()
  auditSignerKeyId = 'audit-key-1';

  @ConfigKey('RuleControlPlane:AuditPrivateKeyPemPath')
  @IsString()
  auditPrivateKeyPemPath = '';

  assertStartupRules(environment: EnvironmentName): void {
    const key = 'RuleControlPlane:AuditPrivateKeyPemPath';
    if (this.auditPrivateKeyPemPath.trim()) {
      // Set in any environment: it must be a readable RSA private key (checked before anything starts).
      let type: string | undefined;
      try {
        type = createPrivateKey(readFileSync(this.auditPrivateKeyPemPath, 'utf8')).asymmetricKeyType;
      } catch (error) {
        throw new ConfigurationError(
          `${key} points to '${this.auditPrivateKeyPemPath}', which is missing or unreadable, or not a PEM private key (${(error as Error).message})`,
          [key],
        );
      }
      if (type !== 'rsa')
        throw new ConfigurationError(`${key} must hold an RSA private key (got ${type})`, [key]);
      return;
    }
    if (isDevelopmentOrTesting(environment)) return;
    throw new ConfigurationError(
      `${key} is required outside Development and Testing (environment: ${environment})`,
      [key],
    );
  }
}

/** `ControlPlaneAuth:*`: operator authentication (off by default, as the spec says). */
export class ControlPlaneAuthSettings implements StartupRules {
  @ConfigKey('ControlPlaneAuth:DisableAuthorization')
  @IsBoolean()
  disableAuthorization = true;

  /** PEM public key or certificate (RS256), or the HMAC secret identity signs with when `UseRsa` is false. */
  @ConfigKey('ControlPlaneAuth:SigningKey')
  @IsString()
  signingKey = '';

  /** Extension: the `kid` the configured key must carry (empty: any). */
  @ConfigKey('ControlPlaneAuth:SigningKeyId')
  @IsString()
  signingKeyId = '';

  /** Extension: verify tokens against identity's JWKS instead of a shared key (wins over SigningKey). */
  @ConfigKey('ControlPlaneAuth:JwksUrl')
  @IsString()
  jwksUrl = '';

  @ConfigKey('ControlPlaneAuth:Issuer')
  @IsString()
  issuer = '';

  @ConfigKey('ControlPlaneAuth:Audience')
  @IsString()
  audience = '';

  /** Extension: identity's denylist endpoint; default `/api/v1/auth/revocations` on the JWKS URL's origin. */
  @ConfigKey('ControlPlaneAuth:RevocationsUrl')
  @IsString()
  revocationsUrl = '';

  /** Extension: allowed clock skew for `exp`/`nbf` (at most 15). */
  @ConfigKey('ControlPlaneAuth:ClockToleranceSeconds')
  @IsInt()
  @Min(0)
  @Max(15)
  clockToleranceSeconds = 5;

  /** Extension: external policy decision point (HTTP POST); empty = local role/permission check. */
  @ConfigKey('ControlPlaneAuth:PolicyDecisionPointUrl')
  @IsString()
  policyDecisionPointUrl = '';

  @ConfigKey('ControlPlaneAuth:PolicyDecisionPointTimeoutMs')
  @IsInt()
  @Min(100)
  policyDecisionPointTimeoutMs = 2000;

  assertStartupRules(): void {
    if (this.disableAuthorization) return;
    if (!this.signingKey.trim() && !this.jwksUrl.trim()) {
      throw new ConfigurationError(
        'ControlPlaneAuth:SigningKey (or ControlPlaneAuth:JwksUrl) is required when ControlPlaneAuth:DisableAuthorization is false',
        ['ControlPlaneAuth:SigningKey'],
      );
    }
    for (const [key, value] of [
      ['ControlPlaneAuth:Issuer', this.issuer],
      ['ControlPlaneAuth:Audience', this.audience],
    ]) {
      if (!value.trim()) {
        throw new ConfigurationError(
          `${key} is required when ControlPlaneAuth:DisableAuthorization is false`,
          [key],
        );
      }
    }
  }
}

/** `ControlPlaneRuntimeInfo:*`: what the public info endpoint reports. */
export class RuntimeInfoSettings {
  @ConfigKey('ControlPlaneRuntimeInfo:Version')
  @IsString()
  version = '';

  @ConfigKey('ControlPlaneRuntimeInfo:ActivationProof')
  @IsString()
  activationProof = '';

  @ConfigKey('ControlPlaneRuntimeInfo:Tier')
  @IsIn(['Free', 'Licensed', 'Enterprise'])
  tier = 'Free';

  @ConfigKey('ControlPlaneRuntimeInfo:IsValid')
  @IsBoolean()
  isValid = false;

  @ConfigKey('ControlPlaneRuntimeInfo:LicenseId')
  @IsString()
  licenseId = '';

  @ConfigKey('ControlPlaneRuntimeInfo:AllowedFeatures')
  @IsArray()
  @IsString({ each: true })
  allowedFeatures: string[] = [];
}

/** `RuleStoreConfigs:*`: file-backed store, runtime cache, change channel. */
export class RuleStoreSettings {
  @ConfigKey('RuleStoreConfigs:RootPath')
  @IsString()
  rootPath = '';

  @ConfigKey('RuleStoreConfigs:EnableRuntimeCache')
  @IsBoolean()
  enableRuntimeCache = true;

  @ConfigKey('RuleStoreConfigs:RuleChangeChannel')
  @IsString()
  ruleChangeChannel = 'rule-changes';
}

export const EXECUTION_ROUTER_MODES = ['Traditional', 'Rules', 'Hybrid', 'Shadow'] as const;
export type ExecutionRouterMode = (typeof EXECUTION_ROUTER_MODES)[number];

/** `RuleEngineOptions:ExecutionRouter:*` (also `RULEENGINE_EXECUTIONROUTER_MODE` / `…_CANDIDATEVERSION`). */
export class ExecutionRouterSettings {
  @ConfigKey('RuleEngineOptions:ExecutionRouter:Mode')
  @IsIn(EXECUTION_ROUTER_MODES as unknown as string[])
  mode: ExecutionRouterMode = 'Rules';

  @ConfigKey('RuleEngineOptions:ExecutionRouter:ActiveVersion', 'number')
  @IsOptional()
  @IsInt()
  @Min(1)
  activeVersion?: number;

  @ConfigKey('RuleEngineOptions:ExecutionRouter:CandidateVersion', 'number')
  @IsOptional()
  @IsInt()
  @Min(1)
  candidateVersion?: number;

  @ConfigKey('RuleEngineOptions:ExecutionRouter:ComparisonStrategies')
  @IsArray()
  @IsIn(['OutputFacts', 'ExecutionTime'], { each: true })
  comparisonStrategies: string[] = ['OutputFacts'];

  /** Ours: share of Hybrid traffic that runs the rules (the rest takes the traditional path). */
  @ConfigKey('RuleEngineOptions:ExecutionRouter:HybridRulesPercentage', 'number')
  @IsInt()
  @Min(0)
  @Max(100)
  hybridRulesPercentage = 50;

  /** Ours: output fields (or parents of fields) whose difference, absence included, makes a shadow difference `high`. */
  @ConfigKey('RuleEngineOptions:ExecutionRouter:CriticalFields')
  @IsArray()
  @IsString({ each: true })
  criticalFields: string[] = [];
}

/** Ours: `RuleEngineOptions:*` beyond the router — how rule sets are compiled and run. */
export class RuleEngineSettings {
  /** Base URL of the decisions service, for flow nodes that reference a stored table (`tableRef`). */
  @ConfigKey('RuleEngineOptions:DecisionTablesUrl')
  @IsString()
  decisionTablesUrl = 'http://127.0.0.1:3001';

  /**
   * API key presented to the decisions service (`X-Api-Key`) when it requires authentication: a service
   * key (`Authentication:ApiKeys:*` there) acts for the tenant each request names. Empty: no credentials.
   */
  @ConfigKey('RuleEngineOptions:DecisionTablesApiKey')
  @IsOptional()
  @IsString()
  decisionTablesApiKey?: string;

  /** Compiled rule set versions kept in memory (LRU, per tenant and version). */
  @ConfigKey('RuleEngineOptions:CompiledCacheCapacity', 'number')
  @IsInt()
  @Min(1)
  compiledCacheCapacity = 1000;

  /** Time limit of one execution (milliseconds). */
  @ConfigKey('RuleEngineOptions:ExecutionTimeoutMs', 'number')
  @IsInt()
  @Min(1)
  @Max(60_000)
  executionTimeoutMs = 5000;

  /** Time limit of a dry-run (milliseconds); the spec caps it at 10 seconds. */
  @ConfigKey('RuleEngineOptions:DryRunTimeoutMs', 'number')
  @IsInt()
  @Min(1)
  @Max(10_000)
  dryRunTimeoutMs = 10_000;

  /** Connector name → URL: a connector node POSTs `{ connector, operation, input }` there and merges the JSON answer. */
  @ConfigKey('RuleEngineOptions:Connectors', 'dictionary')
  @IsOptional()
  connectors?: Record<string, string>;
}

export const CONTROL_PLANE_SETTINGS = [
  ConnectionStringsSettings,
  RuleControlPlaneSettings,
  ControlPlaneAuthSettings,
  RuntimeInfoSettings,
  RuleStoreSettings,
  ExecutionRouterSettings,
  RuleEngineSettings,
  ...EXECUTION_AUDIT_SETTINGS,
  ...QUOTA_SETTINGS,
  ...CATALOG_SETTINGS,
];
