import {
  hmacKeyId,
  keyIdFor,
  KeyResolver,
  MAX_CLOCK_TOLERANCE_SECONDS,
  SupportedAlgorithm,
  VerificationKey,
} from '@arbiter/auth';
import {
  AppError,
  ConfigurationError,
  ENVIRONMENT,
  EnvironmentName,
  isDevelopmentOrTesting,
  UnitOfWork,
} from '@arbiter/platform';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { SignJWT, type JSONWebKeySet, type JWK, type JWTPayload } from 'jose';
import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { SecretProvider } from '../secrets';
import { TokenSettings } from '../settings';
import { AuthErrors } from './auth-errors';
import { SigningKeyRepository } from './persistence/signing-key.repository';

interface SigningKey {
  kid: string;
  alg: SupportedAlgorithm;
  key: KeyObject | Uint8Array;
  source: 'configured' | 'generated' | 'hmac' | 'tenant';
  tenantId?: string;
}

const SERVICE_TENANT = 'default';

/** What a rotation answers: the new signing key's id and the one it replaced. */
export interface KeyRotation {
  kid: string;
  previousKid: string;
}

function pem(value: string): string {
  return value.includes('\\n') && !value.includes('\n') ? value.replace(/\\n/g, '\n') : value;
}

function publicJwkOf(key: KeyObject): JWK {
  const jwk = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'jwk' }) as JWK;
  return { kty: jwk.kty, n: jwk.n, e: jwk.e, ...(jwk.crv ? { crv: jwk.crv, x: jwk.x, y: jwk.y } : {}) };
}

/**
 * Identity's signing keys. RS256 with RSA-2048 by default: PEM paths win over inline keys (inline keys
 * may also come from the secret provider); without either, Development and Testing generate a key
 * pair once and keep it in the `auth_signing_keys` table (so every replica and restart signs with the
 * same key); Production refuses to start. `UseRsa=false` signs HS256 with `SymmetricSecretKey`.
 * Each key has a `kid` bound to one algorithm. Per-tenant keys (`MultiTenantEnabled`,
 * `SigningKeysByTenant`) sign that tenant's tokens and only verify tokens of that tenant.
 * Rotation: the old key stays published in the JWKS until the last token it signed has expired, and
 * stays usable internally (refresh accepts expired access tokens) for `RefreshTokenEim` minutes.
 */
@Injectable()
export class KeyStore implements KeyResolver, OnModuleInit {
  private readonly logger = new Logger('KeyStore');
  private signing!: SigningKey;
  private readonly tenantSigning = new Map<string, SigningKey>();
  private verification = new Map<string, VerificationKey>();
  private readonly memoryKeys = new Map<string, VerificationKey>();
  private lastReload = 0;

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(SigningKeyRepository) private readonly keys: SigningKeyRepository,
    @Inject(TokenSettings) private readonly settings: TokenSettings,
    @Inject(SecretProvider) private readonly secrets: SecretProvider,
    @Inject(ENVIRONMENT) private readonly environment: EnvironmentName,
  ) {}

  async onModuleInit(): Promise<void> {
    this.signing = await this.loadDefaultKey();
    if (this.settings.multiTenantEnabled) {
      for (const [tenantId, value] of Object.entries(this.settings.signingKeysByTenant ?? {})) {
        this.tenantSigning.set(tenantId, await this.loadTenantKey(tenantId, value));
      }
    }
    await this.reload();
    this.logger.log({
      msg: 'signing key ready',
      kid: this.signing.kid,
      alg: this.signing.alg,
      source: this.signing.source,
    });
  }

  private async readSecret(
    pathValue: string,
    secretName: string,
    inline: string,
  ): Promise<string | undefined> {
    if (pathValue.trim()) {
      try {
        return readFileSync(pathValue.trim(), 'utf8');
      } catch {
        throw new ConfigurationError(
          `${secretName}Path points to '${pathValue}', which is missing or unreadable`,
          [`${secretName}Path`],
        );
      }
    }
    const fromProvider = await this.secrets.get(secretName);
    const value = fromProvider ?? (inline.trim() ? inline : undefined);
    return value ? pem(value) : undefined;
  }

  private retireOthers(kid: string, tenantId: string | null) {
    const s = this.settings;
    return this.uow.run(
      (m) =>
        this.keys.retireOthers(m, kid, tenantId, {
          publishSeconds: s.expiryMinutes * 60 + MAX_CLOCK_TOLERANCE_SECONDS,
          verifySeconds: Math.max(s.refreshTokenEim, s.expiryMinutes) * 60,
        }),
      { tenantId: SERVICE_TENANT },
    );
  }

  private upsert(row: Parameters<SigningKeyRepository['upsert']>[1]) {
    return this.uow.run((m) => this.keys.upsert(m, row), { tenantId: SERVICE_TENANT });
  }

  private async loadDefaultKey(): Promise<SigningKey> {
    const s = this.settings;
    if (!s.useRsa) {
      const secret = (await this.secrets.get('TokenConfigs:SymmetricSecretKey')) ?? s.symmetricSecretKey;
      const kid = hmacKeyId(secret);
      const key = new TextEncoder().encode(secret);
      this.memoryKeys.set(kid, { kid, alg: 'HS256', key });
      await this.retireOthers(kid, null);
      return { kid, alg: 'HS256', key, source: 'hmac' };
    }
    const privatePem = await this.readSecret(s.privateKeyPath, 'TokenConfigs:PrivateKey', s.privateKey);
    if (privatePem) {
      const privateKey = createPrivateKey(privatePem);
      if (privateKey.asymmetricKeyType !== 'rsa') {
        throw new ConfigurationError('TokenConfigs:PrivateKey must be an RSA private key', [
          'TokenConfigs:PrivateKey',
        ]);
      }
      if ((privateKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048) {
        throw new ConfigurationError('TokenConfigs:PrivateKey must be at least 2048 bits', [
          'TokenConfigs:PrivateKey',
        ]);
      }
      const jwk = publicJwkOf(privateKey);
      const publicPem = await this.readSecret(s.publicKeyPath, 'TokenConfigs:PublicKey', s.publicKey);
      if (publicPem && publicJwkOf(createPublicKey(publicPem)).n !== jwk.n) {
        throw new ConfigurationError('TokenConfigs:PublicKey does not match TokenConfigs:PrivateKey', [
          'TokenConfigs:PublicKey',
        ]);
      }
      const kid = keyIdFor(jwk);
      await this.upsert({ kid, alg: 'RS256', public_jwk: jwk, private_pem: null, source: 'configured' });
      await this.retireOthers(kid, null);
      return { kid, alg: 'RS256', key: privateKey, source: 'configured' };
    }
    if (!isDevelopmentOrTesting(this.environment)) {
      throw new ConfigurationError(
        `TokenConfigs:PrivateKeyPath (or TokenConfigs:PrivateKey) is required in ${this.environment} when TokenConfigs:UseRsa is true; generated keys are for Development and Testing only`,
        ['TokenConfigs:PrivateKeyPath'],
      );
    }
    const stored = await this.uow.run((m) => this.keys.currentGenerated(m), { tenantId: SERVICE_TENANT });
    if (stored?.private_pem) {
      await this.retireOthers(stored.kid, null);
      return {
        kid: stored.kid,
        alg: 'RS256',
        key: await this.decryptStored(stored.private_pem),
        source: 'generated',
      };
    }
    return this.generate();
  }

  private async generate(): Promise<SigningKey> {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = publicJwkOf(privateKey);
    const kid = keyIdFor(jwk);
    // Encrypted at rest (PKCS#8, AES-256-CBC, PBKDF2) with a passphrase from the secret provider: a
    // reader of the table (the application role, a backup) does not get a usable signing key.
    const privatePem = privateKey
      .export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: await this.keyPassphrase() })
      .toString();
    await this.upsert({ kid, alg: 'RS256', public_jwk: jwk, private_pem: privatePem, source: 'generated' });
    await this.retireOthers(kid, null);
    this.logger.warn({ msg: 'generated an RSA-2048 signing key (Development/Testing only)', kid });
    return { kid, alg: 'RS256', key: privateKey, source: 'generated' };
  }

  /**
   * The passphrase of stored private keys: the secret `IdentityAuth:KeyEncryptionKey` (secret provider:
   * configuration, environment or Vault), else the HMAC secret `TokenConfigs:SymmetricSecretKey` (a
   * secret of at least 32 characters the settings require anyway).
   */
  private async keyPassphrase(): Promise<string> {
    const value =
      (await this.secrets.get('IdentityAuth:KeyEncryptionKey')) ??
      (await this.secrets.get('TokenConfigs:SymmetricSecretKey')) ??
      this.settings.symmetricSecretKey;
    if (!value || value.length < 32) {
      throw new ConfigurationError(
        'IdentityAuth:KeyEncryptionKey (or TokenConfigs:SymmetricSecretKey) of at least 32 characters is required to store generated signing keys',
        ['IdentityAuth:KeyEncryptionKey'],
      );
    }
    return value;
  }

  private async decryptStored(stored: string) {
    if (!stored.includes('ENCRYPTED')) return createPrivateKey(stored); // stored before encryption
    try {
      return createPrivateKey({ key: stored, format: 'pem', passphrase: await this.keyPassphrase() });
    } catch {
      throw new ConfigurationError(
        'The stored signing key cannot be decrypted: IdentityAuth:KeyEncryptionKey (or TokenConfigs:SymmetricSecretKey) changed',
        ['IdentityAuth:KeyEncryptionKey'],
      );
    }
  }

  private async loadTenantKey(tenantId: string, value: string): Promise<SigningKey> {
    let material = pem(value.trim());
    if (!material.includes('-----BEGIN') && existsSync(material)) material = readFileSync(material, 'utf8');
    if (material.includes('-----BEGIN')) {
      const privateKey = createPrivateKey(material);
      const jwk = publicJwkOf(privateKey);
      const kid = keyIdFor(jwk);
      await this.upsert({
        kid,
        alg: 'RS256',
        tenant_id: tenantId,
        public_jwk: jwk,
        private_pem: null,
        source: 'tenant',
      });
      await this.retireOthers(kid, tenantId);
      return { kid, alg: 'RS256', key: privateKey, source: 'tenant', tenantId };
    }
    if (material.length < 32) {
      throw new ConfigurationError(
        `TokenConfigs:SigningKeysByTenant:${tenantId} must be an RSA private key (PEM or path) or a secret of at least 32 characters`,
        [`TokenConfigs:SigningKeysByTenant:${tenantId}`],
      );
    }
    const kid = hmacKeyId(`${tenantId}:${material}`);
    const key = new TextEncoder().encode(material);
    this.memoryKeys.set(kid, { kid, alg: 'HS256', key, tenantId });
    return { kid, alg: 'HS256', key, source: 'tenant', tenantId };
  }

  /** Reloads the verification keys from the database (other replicas may have rotated). */
  async reload(): Promise<void> {
    this.lastReload = Date.now();
    const rows = await this.uow.run((m) => this.keys.verifiable(m), { tenantId: SERVICE_TENANT });
    const next = new Map<string, VerificationKey>(this.memoryKeys);
    for (const row of rows) {
      next.set(row.kid, {
        kid: row.kid,
        alg: row.alg as SupportedAlgorithm,
        key: createPublicKey({ key: row.public_jwk as never, format: 'jwk' }),
        tenantId: row.tenant_id ?? undefined,
      });
    }
    this.verification = next;
  }

  async resolve(kid: string | undefined): Promise<VerificationKey | undefined> {
    if (!kid) return undefined;
    if (!this.verification.has(kid) && Date.now() - this.lastReload > 2_000) await this.reload();
    return this.verification.get(kid);
  }

  /** The key that signs for `tenantId` now. */
  signingKeyFor(tenantId: string): SigningKey {
    return (this.settings.multiTenantEnabled && this.tenantSigning.get(tenantId)) || this.signing;
  }

  async sign(claims: JWTPayload, tenantId: string): Promise<string> {
    const key = this.signingKeyFor(tenantId);
    return new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.key);
  }

  /** Public keys: current ones and retired ones whose last token has not expired yet. */
  async jwks(): Promise<JSONWebKeySet> {
    const rows = await this.uow.run((m) => this.keys.published(m), { tenantId: SERVICE_TENANT });
    return {
      keys: rows.map((r) => ({
        ...r.public_jwk,
        kid: r.kid,
        alg: r.alg,
        use: 'sig',
        ...(r.tenant_id ? { tenant_id: r.tenant_id } : {}),
      })),
    };
  }

  /** Rotates a generated key. Configured keys rotate by configuration (the previous public key stays published). */
  async rotate(): Promise<KeyRotation> {
    if (this.signing.source !== 'generated') {
      throw AppError.conflict(
        AuthErrors.KeysConfigured,
        'The signing key comes from configuration: rotate it by configuring the new key and restarting',
      );
    }
    const previousKid = this.signing.kid;
    this.signing = await this.generate();
    await this.reload();
    return { kid: this.signing.kid, previousKid };
  }

  current(): { kid: string; alg: string } {
    return { kid: this.signing.kid, alg: this.signing.alg };
  }
}
