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
import type { EntityManager } from 'typeorm';
import { SigningKeyRepository } from './persistence/signing-key.repository';

interface SigningKey {
  kid: string;
  alg: SupportedAlgorithm;
  key: KeyObject | Uint8Array;
  source: 'configured' | 'generated' | 'hmac' | 'tenant';
  tenantId?: string;
}

const SERVICE_TENANT = 'default';

/** What a rotation answers: the new signing key's id, the one it replaces, and when it starts signing. */
export interface KeyRotation {
  kid: string;
  previousKid: string;
  /** When the new key starts signing (it is published in the JWKS from the rotation on). */
  activatesAt: string;
}

/**
 * How stale a replica's view of the service's generated signing key may be: before signing, a replica
 * whose view is older re-reads it from the database (one small query at most this often).
 */
export const SIGNING_STATE_REFRESH_MS = 1_000;

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
 * `SigningKeysByTenant`, RSA only) sign that tenant's tokens and are the only keys that verify them.
 * Rotation of a generated key is a database step every replica follows: the new key is stored under
 * an advisory lock (two replicas never rotate twice; a rotation asked for while one is pending answers
 * the pending one), published in the JWKS at once, and signs only from `activates_at`, after
 * `IdentityAuth:KeyPublishDelaySeconds` (longer than the verifiers' JWKS refetch cooldown), when the
 * old key retires on every replica at once. Each replica reads the active key from the database before
 * signing when its view is older than `SIGNING_STATE_REFRESH_MS` or the scheduled switch has come. The
 * old key stays published until the last token it signed has expired, and stays usable internally
 * (refresh accepts expired access tokens) for `RefreshTokenEim` minutes.
 */
@Injectable()
export class KeyStore implements KeyResolver, OnModuleInit {
  private readonly logger = new Logger('KeyStore');
  private signing!: SigningKey;
  private readonly tenantSigning = new Map<string, SigningKey>();
  private verification = new Map<string, VerificationKey>();
  private readonly memoryKeys = new Map<string, VerificationKey>();
  /** Monotonic (`performance.now()`) like `nextSigningCheck`: a wall-clock jump cannot freeze the key view. */
  private lastReload = Number.NEGATIVE_INFINITY;
  private reloading: Promise<void> | null = null;
  /** Generated keys: when the view of the active key must be re-read from the database. */
  private nextSigningCheck = Number.POSITIVE_INFINITY;
  private signingLoad: Promise<void> | null = null;
  private readonly decrypted = new Map<string, KeyObject>();

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

  /** How long a retired key stays published (its last token's lifetime) and verifiable (refresh). */
  private retirementWindow() {
    const s = this.settings;
    return {
      publishSeconds: s.expiryMinutes * 60 + MAX_CLOCK_TOLERANCE_SECONDS,
      verifySeconds: Math.max(s.refreshTokenEim, s.expiryMinutes) * 60,
    };
  }

  private retireOthers(kid: string, tenantId: string | null) {
    return this.uow.run((m) => this.keys.retireOthers(m, kid, tenantId, this.retirementWindow()), {
      tenantId: SERVICE_TENANT,
    });
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
    // One replica at a time (advisory lock): the first start of a cluster generates exactly one key.
    const kid = await this.uow.run(
      async (m) => {
        await this.keys.lockRotation(m);
        const state = await this.keys.generatedState(m);
        const active = state.find((k) => k.activatesInMs <= 0);
        if (active) return active.kid;
        const created = await this.newGeneratedKey();
        await this.keys.upsert(m, created.row);
        // a configured key this deployment used before stops signing (still published for its tokens)
        await this.keys.retireOthers(m, created.row.kid, null, this.retirementWindow());
        this.decrypted.set(created.row.kid, created.privateKey);
        this.logger.warn({
          msg: 'generated an RSA-2048 signing key (Development/Testing only)',
          kid: created.row.kid,
        });
        return created.row.kid;
      },
      { tenantId: SERVICE_TENANT },
    );
    this.signing = { kid, alg: 'RS256', key: new Uint8Array(0), source: 'generated' };
    this.nextSigningCheck = 0;
    await this.loadGeneratedState();
    return this.signing;
  }

  /** A new RSA-2048 key pair, its private half encrypted for storage. */
  private async newGeneratedKey() {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const jwk = publicJwkOf(privateKey);
    const kid = keyIdFor(jwk);
    // Encrypted at rest (PKCS#8, AES-256-CBC, PBKDF2) with a passphrase from the secret provider: a
    // reader of the table (the application role, a backup) does not get a usable signing key.
    const privatePem = privateKey
      .export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: await this.keyPassphrase() })
      .toString();
    return {
      privateKey,
      row: { kid, alg: 'RS256', public_jwk: jwk, private_pem: privatePem, source: 'generated' },
    };
  }

  /**
   * Re-reads the service's generated keys from the database: the one that signs now becomes this
   * replica's signing key; a pending one (a rotation under way) is loaded for verification, and the
   * next re-read is due at its activation at the latest.
   */
  private loadGeneratedState(within?: EntityManager): Promise<void> {
    this.signingLoad ??= (async () => {
      const state = within
        ? await this.keys.generatedState(within)
        : await this.uow.run((m) => this.keys.generatedState(m), { tenantId: SERVICE_TENANT });
      const now = performance.now();
      let next = now + SIGNING_STATE_REFRESH_MS;
      const active = state.find((k) => k.activatesInMs <= 0);
      for (const k of state) if (k.activatesInMs > 0) next = Math.min(next, now + k.activatesInMs);
      if (active?.retiresInMs != null) next = Math.min(next, now + Math.max(active.retiresInMs, 0));
      if (active && (active.kid !== this.signing.kid || !(this.signing.key instanceof KeyObject))) {
        let key = this.decrypted.get(active.kid);
        if (!key) {
          key = await this.decryptStored(active.private_pem);
          this.decrypted.set(active.kid, key);
        }
        this.signing = { kid: active.kid, alg: 'RS256', key, source: 'generated' };
      }
      if (state.some((k) => !this.verification.has(k.kid))) await this.reload(within);
      this.nextSigningCheck = next;
    })().finally(() => (this.signingLoad = null));
    return this.signingLoad;
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

  /**
   * A tenant's own key (`TokenConfigs:SigningKeysByTenant:<tenant>`): an RSA private key of at least
   * 2048 bits, as PEM or a path to a PEM file. Its public half is published in the JWKS with
   * `tenant_id`, so every service verifies that tenant's tokens with it and with nothing else. An HMAC
   * secret is refused: it cannot be published, so no other service could verify the tenant's tokens.
   */
  private async loadTenantKey(tenantId: string, value: string): Promise<SigningKey> {
    const name = `TokenConfigs:SigningKeysByTenant:${tenantId}`;
    let material = pem(value.trim());
    if (!material.includes('-----BEGIN') && existsSync(material)) material = readFileSync(material, 'utf8');
    if (!material.includes('-----BEGIN')) {
      throw new ConfigurationError(
        `${name} must be an RSA private key (PEM, or a path to a PEM file): an HMAC secret cannot be published in the JWKS, so the other services could not verify that tenant's tokens`,
        [name],
      );
    }
    let privateKey: KeyObject;
    try {
      privateKey = createPrivateKey(material);
    } catch {
      throw new ConfigurationError(`${name} is not a readable PEM private key`, [name]);
    }
    if (
      privateKey.asymmetricKeyType !== 'rsa' ||
      (privateKey.asymmetricKeyDetails?.modulusLength ?? 0) < 2048
    ) {
      throw new ConfigurationError(`${name} must be an RSA private key of at least 2048 bits`, [name]);
    }
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

  /**
   * Whether `tenantId` has keys of its own (configured now, or published for tokens still alive): then
   * the tenant claim selects them, and a token of that tenant signed with the service key is refused.
   */
  hasTenantKeys(tenantId: string): boolean {
    if (this.tenantSigning.has(tenantId)) return true;
    for (const key of this.verification.values()) if (key.tenantId === tenantId) return true;
    return false;
  }

  /**
   * Reloads the verification keys from the database (other replicas may have rotated), in the caller's
   * transaction when it gives one (the service-wide key table is readable from any tenant's).
   */
  async reload(within?: EntityManager): Promise<void> {
    const done = this.loadVerification(within);
    this.reloading = done;
    try {
      await done;
    } finally {
      if (this.reloading === done) this.reloading = null;
    }
  }

  private async loadVerification(within?: EntityManager): Promise<void> {
    this.lastReload = performance.now();
    const rows = within
      ? await this.keys.verifiable(within)
      : await this.uow.run((m) => this.keys.verifiable(m), { tenantId: SERVICE_TENANT });
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
    if (!this.verification.has(kid)) {
      // a reload under way decides (a request arriving meanwhile must not fail on the cooldown it started)
      if (this.reloading) await this.reloading.catch(() => undefined);
      else if (performance.now() - this.lastReload > 2_000) await this.reload();
    }
    return this.verification.get(kid);
  }

  /**
   * The key that signs for `tenantId` now (a generated one as the database says it is now, read in the
   * caller's transaction when it gives one: a second transaction there could wait on the first).
   */
  async signingKeyFor(tenantId: string, within?: EntityManager): Promise<SigningKey> {
    const tenantKey = this.settings.multiTenantEnabled ? this.tenantSigning.get(tenantId) : undefined;
    if (tenantKey) return tenantKey;
    if (this.signing.source === 'generated' && performance.now() >= this.nextSigningCheck) {
      await this.loadGeneratedState(within);
    }
    return this.signing;
  }

  async sign(claims: JWTPayload, tenantId: string, within?: EntityManager): Promise<string> {
    const key = await this.signingKeyFor(tenantId, within);
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

  /**
   * Rotates the generated service key, coordinated through the database: under the rotation lock, a
   * new key is stored with `activates_at` = now + `IdentityAuth:KeyPublishDelaySeconds` (published in the
   * JWKS from now on, signing from then on, on every replica), and the current key retires at that
   * instant. While a rotation is pending, another request (on any replica) answers that rotation.
   * Configured keys rotate by configuration (the previous public key stays published).
   */
  async rotate(): Promise<KeyRotation> {
    if (this.signing.source !== 'generated') {
      throw AppError.conflict(
        AuthErrors.KeysConfigured,
        'The signing key comes from configuration: rotate it by configuring the new key and restarting',
      );
    }
    const created = await this.newGeneratedKey();
    const rotation = await this.uow.run(
      async (m) => {
        await this.keys.lockRotation(m);
        const previousKid = (await this.keys.currentServiceKid(m)) ?? this.signing.kid;
        const pending = await this.keys.pendingServiceKey(m);
        if (pending) {
          return { kid: pending.kid, previousKid, activatesAt: new Date(pending.activates_at).toISOString() };
        }
        const at = await this.keys.schedule(
          m,
          created.row,
          this.settings.keyPublishDelaySeconds,
          this.retirementWindow(),
        );
        this.decrypted.set(created.row.kid, created.privateKey);
        return { kid: created.row.kid, previousKid, activatesAt: at.toISOString() };
      },
      { tenantId: SERVICE_TENANT },
    );
    this.logger.log({ msg: 'signing key rotation scheduled', ...rotation });
    this.nextSigningCheck = 0;
    await this.loadGeneratedState();
    await this.reload();
    return rotation;
  }

  current(): { kid: string; alg: string } {
    return { kid: this.signing.kid, alg: this.signing.alg };
  }
}
