import { randomUUID } from 'node:crypto';
import { MigratedDatabase, startMigratedDatabase } from '@arbiter/testing';
import { IDENTITY_MIGRATIONS } from '../../database';
import { AuthAuditRepository } from './auth-audit.repository';
import { LoginAttemptRepository } from './login-attempt.repository';
import { RefreshTokenRepository } from './refresh-token.repository';
import { RevokedTokenRepository } from './revoked-token.repository';
import { RoleRepository } from './role.repository';
import { UserRepository } from './user.repository';

// Medium test: identity's repositories on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL),
// as the application role, so row-level security keeps the tenant tables apart as in production.

describe('identity repositories (real database)', () => {
  const users = new UserRepository();
  const roles = new RoleRepository();
  const refreshTokens = new RefreshTokenRepository();
  const revoked = new RevokedTokenRepository();
  const attempts = new LoginAttemptRepository();
  const audit = new AuthAuditRepository();
  let db: MigratedDatabase;

  beforeAll(async () => {
    db = await startMigratedDatabase([], IDENTITY_MIGRATIONS);
  });
  afterAll(() => db?.stop());

  async function addUser(tenantId: string, userName: string, userRoles: string[] = []) {
    const id = randomUUID();
    const inserted = await db.uow.run(
      (m) => users.insertIfNameFree(m, { id, tenantId, userName, passwordHash: 'hash', roles: userRoles }),
      { tenantId },
    );
    return { id, inserted };
  }

  describe('users and roles', () => {
    it("gives a user the union of its roles' permissions (role names case-insensitive, deleted roles ignored)", async () => {
      await db.uow.run(
        async (m) => {
          await roles.insertIfNameFree(m, {
            id: randomUUID(),
            tenantId: 'acme',
            name: 'Approver',
            description: '',
            permissions: ['cp.approver', 'Users.View'],
          });
          await roles.insertIfNameFree(m, {
            id: randomUUID(),
            tenantId: 'acme',
            name: 'Viewer',
            description: '',
            permissions: ['Users.View', 'cp.viewer'],
          });
          await roles.insertIfNameFree(m, {
            id: randomUUID(),
            tenantId: 'acme',
            name: 'Gone',
            description: '',
            permissions: ['everything'],
          });
          await m.query(`UPDATE auth_roles SET is_deleted = true WHERE name = 'Gone'`);
        },
        { tenantId: 'acme' },
      );
      const { id } = await addUser('acme', 'alice', ['approver', 'VIEWER', 'Gone']);
      const user = await db.uow.run((m) => users.findWithPermissions(m, id), { tenantId: 'acme' });
      expect(user).toMatchObject({
        id,
        tenantId: 'acme',
        userName: 'alice',
        roles: ['Approver', 'Viewer'],
      });
      expect([...user!.permissions].sort()).toEqual(['Users.View', 'cp.approver', 'cp.viewer']);
    });

    it('inserts a user or role only when the name is free (case-insensitive)', async () => {
      expect((await addUser('acme', 'bob')).inserted).toBe(true);
      expect((await addUser('acme', 'BOB')).inserted).toBe(false);
      await db.uow.run(
        (m) =>
          roles.insertIfNameFree(m, {
            id: randomUUID(),
            tenantId: 'acme',
            name: 'APPROVER',
            description: 'again',
            permissions: [],
          }),
        { tenantId: 'acme' },
      );
      const [{ count }] = await db.uow.run(
        (m) => m.query(`SELECT count(*)::int AS count FROM auth_roles WHERE lower(name) = 'approver'`),
        { tenantId: 'acme' },
      );
      expect(count).toBe(1);
    });

    it('finds a login candidate by user name or e-mail, the user name first; inactive users only for login', async () => {
      const { id } = await addUser('acme', 'carol');
      const other = await addUser('acme', 'carol@example.com');
      await db.uow.run(
        async (m) => {
          await m.query(
            `UPDATE auth_users SET email = 'carol@example.com', is_active = false WHERE id = $1`,
            [id],
          );
          expect(await users.findLoginCandidate(m, 'CAROL')).toMatchObject({ id, is_active: false });
          expect(await users.findLoginCandidate(m, 'carol@example.com')).toMatchObject({ id: other.id });
          expect(await users.findLoginCandidate(m, 'nobody')).toBeUndefined();
          expect(await users.findWithPermissions(m, id)).toBeUndefined();
        },
        { tenantId: 'acme' },
      );
    });

    it("keeps tenants apart: another tenant's users are invisible (row-level security)", async () => {
      const { id } = await addUser('acme', 'dave');
      await db.uow.run(
        async (m) => {
          expect(await users.findWithPermissions(m, id)).toBeUndefined();
          expect(await users.findLoginCandidate(m, 'dave')).toBeUndefined();
        },
        { tenantId: 'globex' },
      );
      // the same name is free in another tenant
      expect((await addUser('globex', 'dave')).inserted).toBe(true);
    });
  });

  describe('refresh tokens and revocations', () => {
    const issue = (tenantId: string, familyId: string, userId: string, accessExpiresAt: number) => {
      const token = {
        id: randomUUID(),
        tenantId,
        tokenHash: randomUUID(),
        familyId,
        userId,
        accessJti: randomUUID(),
        accessExpiresAt,
        expiresAt: new Date(Date.now() + 3600_000),
      };
      return db.uow.run((m) => refreshTokens.insert(m, token), { tenantId }).then(() => token);
    };
    const now = () => Math.floor(Date.now() / 1000);

    it('stores a token by hash and marks it rotated', async () => {
      const family = randomUUID();
      const user = randomUUID();
      const first = await issue('acme', family, user, now() + 900);
      const second = await issue('acme', family, user, now() + 900);
      await db.uow.run(
        async (m) => {
          const row = await refreshTokens.findByHashForUpdate(m, first.tokenHash);
          expect(row).toMatchObject({ id: first.id, family_id: family, user_id: user, is_revoked: false });
          await refreshTokens.markRotated(m, first.id, second.id);
          expect(await refreshTokens.findByHashForUpdate(m, first.tokenHash)).toMatchObject({
            is_revoked: true,
            reason_revoked: 'Rotated',
            replaced_by: second.id,
          });
        },
        { tenantId: 'acme' },
      );
    });

    it("revokes a family (keeping a rotated token's reason) and returns its unexpired access tokens", async () => {
      const family = randomUUID();
      const user = randomUUID();
      const old = await issue('acme', family, user, now() - 60);
      const live = await issue('acme', family, user, now() + 900);
      await db.uow.run(
        async (m) => {
          await refreshTokens.markRotated(m, old.id, live.id);
          const entries = await refreshTokens.revokeFamily(m, family, 'ReuseDetected');
          expect(entries.map((e) => e.jti)).toEqual([live.accessJti]);
          expect((await refreshTokens.findByHashForUpdate(m, old.tokenHash))?.reason_revoked).toBe('Rotated');
          expect((await refreshTokens.findByHashForUpdate(m, live.tokenHash))?.reason_revoked).toBe(
            'ReuseDetected',
          );
        },
        { tenantId: 'acme' },
      );
    });

    it("keeps tenants apart: another tenant's refresh tokens can be neither read nor revoked", async () => {
      const family = randomUUID();
      const token = await issue('acme', family, randomUUID(), now() + 900);
      await db.uow.run(
        async (m) => {
          expect(await refreshTokens.findByHashForUpdate(m, token.tokenHash)).toBeUndefined();
          expect(await refreshTokens.revokeFamily(m, family, 'Logout')).toEqual([]);
        },
        { tenantId: 'globex' },
      );
      await db.uow.run(
        async (m) =>
          expect(await refreshTokens.findByHashForUpdate(m, token.tokenHash)).toMatchObject({
            is_revoked: false,
          }),
        { tenantId: 'acme' },
      );
    });

    it('lists revoked tokens until they expire, once each, whatever the tenant', async () => {
      const soon = { jti: randomUUID(), expiresAt: new Date(Date.now() + 60_000).toISOString() };
      const later = { jti: randomUUID(), expiresAt: new Date(Date.now() + 120_000).toISOString() };
      const gone = { jti: randomUUID(), expiresAt: new Date(Date.now() - 1000).toISOString() };
      await db.uow.run(
        async (m) => {
          await revoked.insert(m, later, 'acme', 'Logout');
          await revoked.insert(m, soon, 'acme', 'Logout');
          await revoked.insert(m, soon, 'acme', 'ReuseDetected');
          await revoked.insert(m, gone, 'acme', 'Logout');
        },
        { tenantId: 'acme' },
      );
      const listed = await db.uow.run((m) => revoked.listUnexpired(m), { tenantId: 'default' });
      expect(listed.map((e) => e.jti)).toEqual([soon.jti, later.jti]);
      expect(listed[0].expiresAt).toBe(soon.expiresAt);
    });
  });

  describe('login attempts and audit', () => {
    it('counts attempts per key atomically, locks at the limit at once, clears, releases and prunes', async () => {
      const limits = { maxFailures: 3, lockoutSeconds: 30, maxLockoutSeconds: 100, windowSeconds: 900 };
      await db.uow.run(async (m) => {
        expect(await attempts.reserve(m, 'k1', limits)).toEqual({ counted: true, failures: 1 });
        expect(await attempts.reserve(m, 'k1', limits)).toEqual({ counted: true, failures: 2 });
        expect(await attempts.reserve(m, 'k2', limits)).toEqual({ counted: true, failures: 1 });
        expect(await attempts.reserve(m, 'k1', limits)).toEqual({ counted: true, failures: 3 });
        const locked = await attempts.reserve(m, 'k1', limits);
        expect(locked.counted).toBe(false);
        const until = (locked as { lockedUntil: Date }).lockedUntil.getTime();
        expect(until - Date.now()).toBeGreaterThan(25_000);
        expect(until - Date.now()).toBeLessThanOrEqual(30_000);
        await attempts.clear(m, 'k1');
        expect(await attempts.reserve(m, 'k1', limits)).toEqual({ counted: true, failures: 1 });
        await attempts.release(m, 'k2');
        expect(await attempts.reserve(m, 'k2', limits)).toEqual({ counted: true, failures: 1 });
      });
      // the lockout doubles with each attempt after it ends, up to the maximum
      await db.uow.run(async (m) => {
        await m.query(
          `UPDATE auth_login_attempts SET failures = 5, locked_until = now() - interval '1 second' WHERE key = 'k1'`,
        );
        expect(await attempts.reserve(m, 'k1', limits)).toEqual({ counted: true, failures: 6 });
        const [{ secs }] = await m.query(
          `SELECT extract(epoch FROM locked_until - now())::int AS secs FROM auth_login_attempts WHERE key = 'k1'`,
        );
        expect(secs).toBeGreaterThan(95);
        expect(secs).toBeLessThanOrEqual(100);
      });
      // old counts without a lockout are pruned; locked ones stay
      await db.uow.run(async (m) => {
        await m.query(`UPDATE auth_login_attempts SET last_failure = now() - interval '2 hours'`);
        const before = await attempts.count(m);
        expect(await attempts.prune(m, 900)).toBe(before - 1);
        expect(await attempts.count(m)).toBe(1);
      });
    });

    it('records audit events in the tenant, visible to that tenant only', async () => {
      await db.uow.run((m) => audit.record(m, 'acme', 'login', 'u1', { clientAddress: '10.0.0.1' }), {
        tenantId: 'acme',
      });
      const seen = (tenantId: string) =>
        db.uow.run((m) => m.query(`SELECT event, subject, details FROM auth_audit`), { tenantId });
      expect(await seen('acme')).toEqual([
        { event: 'login', subject: 'u1', details: { clientAddress: '10.0.0.1' } },
      ]);
      expect(await seen('globex')).toEqual([]);
      await expect(
        db.uow.run((m) => audit.record(m, 'acme', 'login', null, {}), { tenantId: 'globex' }),
      ).rejects.toThrow(/row-level security/);
    });
  });
});
