import {
  generateSigningKey,
  LICENSE_ALG,
  LicenseJwks,
  privateKeyFromPem,
  ServerClock,
  signDocument,
  SignedDocument,
} from '@arbiter/licensing';
import { UnitOfWork } from '@arbiter/platform';
import { Injectable, Logger } from '@nestjs/common';
import type { KeyObject } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { LicenseSigningKeyRepository } from './persistence/license-store.repository';

const KEY_LOCK = 'arbiter:license:signing-key';

export interface KeyRotation {
  kid: string;
  previousKid: string | null;
}

/**
 * The license server's signing keys (Ed25519, in `license_signing_keys`): one active key signs, every key
 * ever used stays published (a proof signed before a rotation stays verifiable). Replicas share the table:
 * creating and rotating take an advisory lock, so two replicas never rotate twice; each replica reloads
 * the active key on the refresh job's tick.
 */
@Injectable()
export class LicenseSigner {
  private readonly logger = new Logger('LicenseSigner');
  private activeKid: string | undefined;
  private activeKey: KeyObject | undefined;
  private activeCreatedAt: Date | undefined;
  private published: LicenseJwks = { keys: [] };

  constructor(
    private readonly uow: UnitOfWork,
    private readonly keys: LicenseSigningKeyRepository,
  ) {}

  /** Startup: an active key exists (created by the first replica that gets the lock), then loaded. */
  async ensureActiveKey(): Promise<void> {
    await this.uow.run(async (m) => {
      await this.keys.lock(m, KEY_LOCK);
      if (!(await this.keys.active(m))) {
        const created = await this.create(m);
        this.logger.log(`created the license signing key ${created}`);
      }
    });
    await this.reload();
  }

  /** Loads the active key and the published set (after a rotation elsewhere). */
  async reload(): Promise<void> {
    const rows = await this.uow.run((m) => this.keys.all(m));
    const active = rows.find((r) => r.is_active);
    if (active && active.kid !== this.activeKid) {
      this.activeKey = privateKeyFromPem(active.private_pem);
      this.activeKid = active.kid;
    }
    this.activeCreatedAt = active ? new Date(active.created_at) : undefined;
    this.published = { keys: rows.map((r) => r.public_jwk) };
  }

  /** Rotates now: a new active key, the old one retired (still published). */
  async rotate(): Promise<KeyRotation> {
    const result = await this.uow.run(async (m) => {
      await this.keys.lock(m, KEY_LOCK);
      const previous = await this.keys.active(m);
      const kid = await this.create(m);
      return { kid, previousKid: previous?.kid ?? null };
    });
    this.logger.log(`rotated the license signing key: ${result.previousKid} → ${result.kid}`);
    await this.reload();
    return result;
  }

  /**
   * The rotation job: rotates when the active key is older than `days`. Only the replica that gets the
   * lock looks; a replica that finds the key fresh (another one just rotated) does nothing.
   */
  async rotateIfDue(days: number): Promise<KeyRotation | null> {
    const result = await this.uow.run(async (m) => {
      if (!(await this.keys.tryLock(m, KEY_LOCK))) return null;
      const active = await this.keys.active(m);
      const due = !active || Date.now() - new Date(active.created_at).getTime() >= days * 86_400_000;
      if (!due) return null;
      const kid = await this.create(m);
      return { kid, previousKid: active?.kid ?? null };
    });
    await this.reload();
    return result;
  }

  private async create(m: EntityManager): Promise<string> {
    const key = generateSigningKey();
    await this.keys.activate(m, {
      kid: key.kid,
      alg: LICENSE_ALG,
      public_jwk: key.publicJwk,
      private_pem: key.privatePem,
    });
    return key.kid;
  }

  /** The server time and the next counter value, from the database (one clock for every replica). */
  async clock(m: EntityManager): Promise<ServerClock> {
    const { now, counter } = await this.keys.clock(m);
    return { serverTime: now.toISOString(), counter };
  }

  sign<P extends { typ: string }>(payload: P): SignedDocument<P> {
    if (!this.activeKey || !this.activeKid) throw new Error('the license signing key is not loaded');
    return signDocument(payload, this.activeKid, this.activeKey);
  }

  get kid(): string {
    if (!this.activeKid) throw new Error('the license signing key is not loaded');
    return this.activeKid;
  }

  get activeSince(): Date | undefined {
    return this.activeCreatedAt;
  }

  jwks(): LicenseJwks {
    return this.published;
  }
}
