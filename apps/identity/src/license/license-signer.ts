import {
  ANSWER_ALG,
  generateSigningKey,
  LICENSE_ALGS,
  LicenseAlg,
  LicenseJwks,
  privateKeyFromPem,
  PROOF_ALG,
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

/** One key kind's rotation. */
export interface KindRotation {
  alg: LicenseAlg;
  kid: string;
  previousKid: string | null;
}

/** A rotation: `kid`/`previousKid` of the proof key (PS256), and every kind rotated. */
export interface KeyRotation {
  kid: string;
  previousKid: string | null;
  rotated: KindRotation[];
}

interface ActiveKey {
  kid: string;
  key: KeyObject;
  createdAt: Date;
}

/**
 * The license server's signing keys (in `license_signing_keys`), two kinds (see `@arbiter/licensing`
 * keys.ts): a `PS256` key (RSA-2048 PSS) signs activation proofs, license records and revocation
 * snapshots, which runtimes verify again and again; an `EdDSA` key (Ed25519) signs heartbeat answers, one
 * per call. One active key per kind; every key ever used stays published (a proof signed before a rotation
 * stays verifiable). Replicas share the table: creating and rotating take an advisory lock, so two replicas
 * never rotate twice; each replica reloads the active keys on the refresh job's tick.
 */
@Injectable()
export class LicenseSigner {
  private readonly logger = new Logger('LicenseSigner');
  private readonly active = new Map<LicenseAlg, ActiveKey>();
  private published: LicenseJwks = { keys: [] };

  constructor(
    private readonly uow: UnitOfWork,
    private readonly keys: LicenseSigningKeyRepository,
  ) {}

  /** Startup: an active key of each kind exists (created by the first replica that gets the lock), then loaded. */
  async ensureActiveKey(): Promise<void> {
    await this.uow.run(async (m) => {
      await this.keys.lock(m, KEY_LOCK);
      for (const alg of LICENSE_ALGS) {
        if (!(await this.keys.active(m, alg))) {
          const created = await this.create(m, alg);
          this.logger.log(`created the ${alg} license signing key ${created}`);
        }
      }
    });
    await this.reload();
  }

  /** Loads the active keys and the published set (after a rotation elsewhere). */
  async reload(): Promise<void> {
    const rows = await this.uow.run((m) => this.keys.all(m));
    for (const alg of LICENSE_ALGS) {
      const row = rows.find((r) => r.is_active && r.alg === alg);
      if (!row) {
        this.active.delete(alg);
        continue;
      }
      const current = this.active.get(alg);
      this.active.set(alg, {
        kid: row.kid,
        key: current?.kid === row.kid ? current.key : privateKeyFromPem(row.private_pem),
        createdAt: new Date(row.created_at),
      });
    }
    this.published = { keys: rows.map((r) => r.public_jwk) };
  }

  /** Rotates every kind now: new active keys, the old ones retired (still published). */
  async rotate(): Promise<KeyRotation> {
    const rotated = await this.uow.run(async (m) => {
      await this.keys.lock(m, KEY_LOCK);
      const done: KindRotation[] = [];
      for (const alg of LICENSE_ALGS) {
        const previous = await this.keys.active(m, alg);
        done.push({ alg, kid: await this.create(m, alg), previousKid: previous?.kid ?? null });
      }
      return done;
    });
    for (const r of rotated)
      this.logger.log(`rotated the ${r.alg} license signing key: ${r.previousKid} → ${r.kid}`);
    await this.reload();
    return this.summary(rotated);
  }

  /**
   * The rotation job: rotates each kind whose active key is older than `days`. Only the replica that gets
   * the lock looks; a replica that finds the keys fresh (another one just rotated) does nothing.
   */
  async rotateIfDue(days: number): Promise<KeyRotation | null> {
    const rotated = await this.uow.run(async (m) => {
      if (!(await this.keys.tryLock(m, KEY_LOCK))) return [];
      const done: KindRotation[] = [];
      for (const alg of LICENSE_ALGS) {
        const active = await this.keys.active(m, alg);
        const due = !active || Date.now() - new Date(active.created_at).getTime() >= days * 86_400_000;
        if (due) done.push({ alg, kid: await this.create(m, alg), previousKid: active?.kid ?? null });
      }
      return done;
    });
    await this.reload();
    return rotated.length ? this.summary(rotated) : null;
  }

  private summary(rotated: KindRotation[]): KeyRotation {
    const proof = rotated.find((r) => r.alg === PROOF_ALG);
    return {
      kid: proof?.kid ?? this.kid,
      previousKid: proof ? proof.previousKid : this.kid,
      rotated,
    };
  }

  private async create(m: EntityManager, alg: LicenseAlg): Promise<string> {
    const key = generateSigningKey(alg);
    await this.keys.activate(m, {
      kid: key.kid,
      alg: key.alg,
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

  private activeKey(alg: LicenseAlg): ActiveKey {
    const active = this.active.get(alg);
    if (!active) throw new Error(`the ${alg} license signing key is not loaded`);
    return active;
  }

  /** Signs a document runtimes keep (proof, license record, snapshot): PS256. */
  sign<P extends { typ: string }>(payload: P): SignedDocument<P> {
    const active = this.activeKey(PROOF_ALG);
    return signDocument(payload, active.kid, active.key);
  }

  /** Signs a per-call answer (heartbeat): Ed25519, cheap to sign. */
  signAnswer<P extends { typ: string }>(payload: P): SignedDocument<P> {
    const active = this.activeKey(ANSWER_ALG);
    return signDocument(payload, active.kid, active.key);
  }

  /** The id of the key that signs proofs (PS256). */
  get kid(): string {
    return this.activeKey(PROOF_ALG).kid;
  }

  /** The id of the key that signs heartbeat answers (Ed25519). */
  get answerKid(): string {
    return this.activeKey(ANSWER_ALG).kid;
  }

  /** When the proof key became active. */
  get activeSince(): Date | undefined {
    return this.active.get(PROOF_ALG)?.createdAt;
  }

  jwks(): LicenseJwks {
    return this.published;
  }
}
