import { ConfigurationError, ENVIRONMENT, EnvironmentName } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { createPrivateKey, createPublicKey, generateKeyPairSync, KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { AuditSigningSettings } from '../audit.settings';

/** Where Development keeps its generated audit key (relative to the working directory). */
export const DEVELOPMENT_AUDIT_KEY_PATH = '.data/control-plane/audit-signing-key.pem';

/**
 * The RSA key that signs audit entries: `RuleControlPlane:AuditPrivateKeyPemPath` when set (required
 * outside Development/Testing, checked at startup), key id `RuleControlPlane:AuditSignerKeyId`. With
 * the path empty: Development generates an RSA-2048 key once and keeps it in
 * `.data/control-plane/audit-signing-key.pem`; Testing (and any `pglite://memory` database) keeps a
 * generated key in memory only.
 */
@Injectable()
export class AuditSigner {
  private readonly logger = new Logger('AuditSigner');
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  readonly keyId: string;
  readonly source: 'configured' | 'generated-file' | 'generated-memory';

  constructor(
    @Inject(AuditSigningSettings) settings: AuditSigningSettings,
    @Inject(ENVIRONMENT) environment: EnvironmentName,
  ) {
    this.keyId = settings.auditSignerKeyId.trim() || 'audit-key-1';
    const path = settings.auditPrivateKeyPemPath.trim();
    if (path) {
      try {
        this.privateKey = createPrivateKey(readFileSync(path, 'utf8'));
      } catch (error) {
        throw new ConfigurationError(
          `RuleControlPlane:AuditPrivateKeyPemPath ('${path}') is not a readable PEM private key: ${(error as Error).message}`,
          ['RuleControlPlane:AuditPrivateKeyPemPath'],
        );
      }
      this.source = 'configured';
    } else if (environment === 'Development' && settings.ruleControlPlaneDb.trim() !== 'pglite://memory') {
      const file = resolve(DEVELOPMENT_AUDIT_KEY_PATH);
      if (!existsSync(file)) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, generate().export({ type: 'pkcs8', format: 'pem' }) as string, { mode: 0o600 });
        this.logger.warn(`Generated a development audit signing key at ${file}`);
      }
      this.privateKey = createPrivateKey(readFileSync(file, 'utf8'));
      this.source = 'generated-file';
    } else {
      this.privateKey = generate();
      this.source = 'generated-memory';
    }
    if (this.privateKey.asymmetricKeyType !== 'rsa')
      throw new ConfigurationError('RuleControlPlane:AuditPrivateKeyPemPath must hold an RSA private key', [
        'RuleControlPlane:AuditPrivateKeyPemPath',
      ]);
    this.publicKey = createPublicKey(this.privateKey);
  }

  /** Whether `keyId` is this node's signing key (the only key a head may be extended from). */
  verifiesKey(keyId: string): boolean {
    return keyId === this.keyId;
  }

  publicKeyPem(): string {
    return this.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  }
}

function generate(): KeyObject {
  return generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}
