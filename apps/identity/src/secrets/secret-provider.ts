import { Configuration } from '@arbiter/platform';
import { Logger } from '@nestjs/common';
import { VaultSettings } from '../settings';

/** Where secrets (signing keys, the HMAC secret) come from. */
export abstract class SecretProvider {
  /** The secret named `name` (a configuration key such as `TokenConfigs:PrivateKey`), or undefined. */
  abstract get(name: string): Promise<string | undefined>;
}

/** Default: configuration files and environment variables (`TokenConfigs__PrivateKey`). */
export class ConfigurationSecretProvider extends SecretProvider {
  constructor(private readonly configuration: Configuration) {
    super();
  }

  async get(name: string): Promise<string | undefined> {
    const value = this.configuration.get(name);
    return value && value.trim() ? value : undefined;
  }
}

/**
 * HashiCorp Vault (or compatible) KV version 2 with token auth: reads
 * `{Address}/v1/{mount}/data/{path}` where `VaultConfigs:SecretsPath` is `<mount>/<path>`, sends
 * `X-Vault-Token` (and `X-Vault-Namespace`), caches the secret's data for `CacheDurationMinutes`,
 * gives up after `RequestTimeoutSeconds`. Secret names are looked up as given (`TokenConfigs:PrivateKey`)
 * and with `__` for `:` (`TokenConfigs__PrivateKey`). Falls back to configuration when Vault lacks a name.
 */
export class VaultSecretProvider extends SecretProvider {
  private readonly logger = new Logger('VaultSecretProvider');
  private cache: { data: Record<string, unknown>; at: number } | null = null;

  constructor(
    private readonly settings: VaultSettings,
    private readonly fallback?: SecretProvider,
  ) {
    super();
    if (!settings.address.trim())
      throw new Error('VaultConfigs:Address is required when VaultConfigs:Type is Vault');
    if (!settings.secretsPath.trim())
      throw new Error('VaultConfigs:SecretsPath is required when VaultConfigs:Type is Vault');
    if (settings.authMethod.toLowerCase() !== 'token') {
      throw new Error(`VaultConfigs:AuthMethod '${settings.authMethod}' is not supported (use Token)`);
    }
    if (settings.tlsSkipVerify) {
      this.logger.warn('VaultConfigs:TlsSkipVerify is set but ignored: certificates are always verified');
    }
  }

  url(): string {
    const [mount, ...rest] = this.settings.secretsPath.replace(/^\/+|\/+$/g, '').split('/');
    return `${this.settings.address.replace(/\/+$/, '')}/v1/${mount}/data/${rest.join('/')}`;
  }

  private async data(): Promise<Record<string, unknown>> {
    const ttl = this.settings.cacheDurationMinutes * 60_000;
    if (this.cache && Date.now() - this.cache.at < ttl) return this.cache.data;
    const response = await fetch(this.url(), {
      headers: {
        'x-vault-token': this.settings.token,
        ...(this.settings.namespace ? { 'x-vault-namespace': this.settings.namespace } : {}),
        accept: 'application/json',
      },
      signal: AbortSignal.timeout(this.settings.requestTimeoutSeconds * 1000),
    });
    if (response.status === 404) {
      this.cache = { data: {}, at: Date.now() };
      return {};
    }
    if (!response.ok) throw new Error(`Vault answered ${response.status} for ${this.settings.secretsPath}`);
    const body = (await response.json()) as { data?: { data?: Record<string, unknown> } };
    const data = body.data?.data ?? {};
    this.cache = { data, at: Date.now() };
    return data;
  }

  async get(name: string): Promise<string | undefined> {
    const data = await this.data();
    const value = data[name] ?? data[name.replace(/:/g, '__')];
    if (typeof value === 'string' && value.trim()) return value;
    return this.fallback?.get(name);
  }
}

export function createSecretProvider(settings: VaultSettings, configuration: Configuration): SecretProvider {
  const fromConfiguration = new ConfigurationSecretProvider(configuration);
  return settings.type === 'Vault' ? new VaultSecretProvider(settings, fromConfiguration) : fromConfiguration;
}
