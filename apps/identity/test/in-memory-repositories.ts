import { RevocationEntry } from '@arbiter/auth';
import { UnitOfWork } from '@arbiter/platform';
import type { EntityManager } from 'typeorm';
import { AuthAuditRepository } from '../src/auth/persistence/auth-audit.repository';
import {
  AttemptLimits,
  LoginAttemptRepository,
  Reservation,
} from '../src/auth/persistence/login-attempt.repository';
import { RefreshTokenRepository, RefreshTokenRow } from '../src/auth/persistence/refresh-token.repository';
import { RevokedTokenRepository } from '../src/auth/persistence/revoked-token.repository';
import { SigningKeyRepository } from '../src/auth/persistence/signing-key.repository';

/** Identity's repositories in memory, for the application services' unit tests (no database). */

/** A unit of work without a database: runs the work with a dummy manager. */
export const inMemoryUnitOfWork = {
  run: (work: (m: EntityManager) => unknown) => work({} as EntityManager),
} as UnitOfWork;

/** The attempts table in memory (no window, no doubling: the SQL is tested on a real database). */
export class InMemoryLoginAttempts extends LoginAttemptRepository {
  readonly rows = new Map<string, { failures: number; lockedUntil?: Date }>();
  override async reserve(_m: EntityManager, key: string, limits: AttemptLimits): Promise<Reservation> {
    const row = this.rows.get(key) ?? { failures: 0 };
    if (row.lockedUntil && row.lockedUntil.getTime() > Date.now()) {
      return { counted: false, lockedUntil: row.lockedUntil };
    }
    row.failures++;
    if (row.failures >= limits.maxFailures)
      row.lockedUntil = new Date(Date.now() + limits.lockoutSeconds * 1000);
    this.rows.set(key, row);
    return { counted: true, failures: row.failures };
  }
  override async clear(_m: EntityManager, key: string) {
    this.rows.delete(key);
  }
  override async release(_m: EntityManager, key: string) {
    const row = this.rows.get(key);
    if (row && !row.lockedUntil) row.failures = Math.max(0, row.failures - 1);
  }
}

export class InMemoryRefreshTokens extends RefreshTokenRepository {
  readonly rows: RefreshTokenRow[] = [];
  override async insert(_m: EntityManager, t: Parameters<RefreshTokenRepository['insert']>[1]) {
    this.rows.push({
      id: t.id,
      tenant_id: t.tenantId,
      token_hash: t.tokenHash,
      family_id: t.familyId,
      user_id: t.userId,
      access_jti: t.accessJti,
      access_expires_at: new Date(t.accessExpiresAt * 1000),
      expired_date: t.expiresAt,
      is_revoked: false,
      reason_revoked: null,
    });
  }
  override async findByHashForUpdate(_m: EntityManager, hash: string) {
    return this.rows.find((r) => r.token_hash === hash);
  }
  override async markRotated(_m: EntityManager, id: string) {
    Object.assign(
      this.rows.find((r) => r.id === id)!,
      { is_revoked: true, reason_revoked: 'Rotated' },
    );
  }
  override async revokeFamily(_m: EntityManager, familyId: string, reason: string) {
    const family = this.rows.filter((r) => r.family_id === familyId);
    for (const r of family) if (!r.is_revoked) Object.assign(r, { is_revoked: true, reason_revoked: reason });
    return family
      .filter((r) => r.access_expires_at.getTime() > Date.now())
      .map((r) => ({ jti: r.access_jti, expiresAt: r.access_expires_at.toISOString() }));
  }
}

export class InMemoryRevokedTokens extends RevokedTokenRepository {
  readonly entries: (RevocationEntry & { reason: string })[] = [];
  override async insert(_m: EntityManager, entry: RevocationEntry, _tenantId: string, reason: string) {
    this.entries.push({ ...entry, reason });
  }
}

export class InMemoryAudit extends AuthAuditRepository {
  readonly events: string[] = [];
  override async record(_m: EntityManager, _tenantId: string, event: string) {
    this.events.push(event);
  }
}

/** Signing keys only in memory: an HS256 key store never needs a stored row. */
export class NoStoredKeys extends SigningKeyRepository {
  override async retireOthers() {}
  override async verifiable() {
    return [];
  }
}
