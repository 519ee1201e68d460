import { decisionsService } from '@arbiter/decisions';
import { EventBus, InProcessEventBus, NatsEventBus, startService, UnitOfWork } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { decodeJwt } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { identityService } from '../src';
import { ADMIN, call, clockAhead, login, PAST_ACCESS_TOKEN_EXPIRY_MS } from './helpers';

/**
 * Access control tried as an attacker would (issue 24): who may register where, who may grant what,
 * and what a decision-table caller needs. Identity and decisions share one bus (NATS with
 * TEST_NATS_URL), the database is PGlite or PostgreSQL (TEST_DATABASE_URL).
 */
describe('access control', () => {
  let identity: ServiceUnderTest;
  let decisions: ServiceUnderTest;
  const shared = process.env.TEST_NATS_URL?.trim() ? undefined : new InProcessEventBus('/arbiter/test');
  let admin: string;

  async function busReady(sut: ServiceUnderTest) {
    const bus = sut.service.app.get(EventBus);
    if (bus instanceof NatsEventBus) expect(await bus.whenConnected(10_000)).toBe(true);
  }

  beforeAll(async () => {
    identity = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      sharedBus: shared,
    });
    decisions = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      sharedBus: shared,
      overrides: {
        'Authentication:Jwt:Authority': identity.url,
        'Authentication:Jwt:Issuer': 'arbiter-identity',
        'Authentication:Jwt:Audience': 'arbiter',
      },
    });
    for (const sut of [identity, decisions]) await busReady(sut);
    if (!shared) await new Promise((r) => setTimeout(r, 500));
    admin = (await login(identity.url, ADMIN.userName, ADMIN.password)).AccessToken;
  }, 180_000);

  afterAll(async () => {
    await decisions?.stop();
    await identity?.stop();
    await shared?.close();
  });

  const register = (userName: string, tenant?: string) =>
    call(identity.url, 'POST', '/api/v1/auth/register', {
      body: { userName, password: `${userName}-password` },
      headers: tenant ? { 'x-tenant-id': tenant } : {},
    });

  /** A user of the `default` tenant created by the administrator with the given roles; its token. */
  async function userWith(userName: string, roles: string[]): Promise<{ id: string; token: string }> {
    const created = await call(identity.url, 'POST', '/api/v1/users', {
      token: admin,
      body: { userName, password: `${userName}-password`, roles },
    });
    expect(created.status).toBe(201);
    return {
      id: created.body.result.entityId,
      token: (await login(identity.url, userName, `${userName}-password`)).AccessToken,
    };
  }

  async function role(name: string, permissions: string[]) {
    const res = await call(identity.url, 'POST', '/api/v1/roles', {
      token: admin,
      body: { name, permissions },
    });
    expect(res.status).toBe(201);
    return res.body.result.entityId as string;
  }

  describe('the defaults outside Development (a Production identity)', () => {
    let production: Awaited<ReturnType<typeof startService>>;
    beforeAll(async () => {
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      production = await startService(identityService, {
        environment: 'Production',
        port: 0,
        host: '127.0.0.1',
        env: {},
        overrides: {
          'ConnectionStrings:LicenseDb': 'pglite://memory',
          'LicenseServer:AdminApiKey': 'k',
          'TokenConfigs:SymmetricSecretKey': 'production-hmac-key-0123456789abcdef',
          'TokenConfigs:Issuer': 'i',
          'TokenConfigs:Audience': 'a',
          'TokenConfigs:PrivateKey': privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
          'IdentityAuth:BootstrapAdminUserName': 'root',
          'IdentityAuth:BootstrapAdminPassword': 'root-password-1',
          'TokenConfigs:EnableCookieAuth': true,
        },
      });
    }, 180_000);
    afterAll(() => production?.close());

    it('has self-registration off (item 1)', async () => {
      const res = await call(production.url, 'POST', '/api/v1/auth/register', {
        body: { userName: 'mallory', password: 'mallory-password' },
      });
      expect(res.status).toBe(403);
      expect(res.body.errors[0].code).toBe('REGISTRATION_DISABLED');
    });

    it('marks the cookie Secure in Production whatever NODE_ENV says (items 9, 11)', async () => {
      const res = await call(production.url, 'POST', '/api/v1/auth/login', {
        body: { userName: 'root', password: 'root-password-1' },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('set-cookie')).toMatch(/; SameSite=Lax; Secure$/);
    });

    it('refuses to refresh with an access token that has not expired (item 6)', async () => {
      const pair = await login(production.url, 'root', 'root-password-1');
      const res = await call(production.url, 'POST', '/api/v1/auth/refresh-token', {
        token: pair.AccessToken,
        body: { refreshToken: pair.RefreshToken },
      });
      expect(res.status).toBe(401);
      expect(res.body.errors[0].code).toBe('ACCESS_TOKEN_NOT_EXPIRED');
    });
  });

  describe('self-registration (item 1)', () => {
    it('never joins a tenant that has users, unless it is listed as open', async () => {
      expect((await register('founder', 'acme')).status).toBe(201);
      const intruder = await register('mallory', 'acme');
      expect(intruder.status).toBe(403);
      expect(intruder.body.errors[0].code).toBe('TENANT_CLOSED');
      // `default` is listed in IdentityAuth:SelfRegistrationTenants by the Testing configuration
      expect((await register('walk-in', 'default')).status).toBe(201);
      const me = await login(identity.url, 'walk-in', 'walk-in-password');
      const perms = await call(identity.url, 'GET', `/api/v1/users?pageSize=1`, { token: me.AccessToken });
      expect(perms.status).toBe(403);
    });

    it('gives a registrant no access to decision tables: viewer, author and admin are enforced', async () => {
      const reg = await register('walk-in-2', 'default');
      expect(reg.status).toBe(201);
      const stranger = (await login(identity.url, 'walk-in-2', 'walk-in-2-password')).AccessToken;
      const tables = (token: string, method = 'GET', path = '', body?: unknown) =>
        call(decisions.url, method, `/api/v1/decision-tables${path}`, { token, body });
      expect((await tables(stranger)).status).toBe(403);
      expect((await tables(stranger, 'POST', '', sampleTable('stolen'))).status).toBe(403);

      await role('TableViewer', ['decisions.viewer']);
      await role('TableAuthor', ['decisions.author']);
      const viewer = await userWith('table-viewer', ['TableViewer']);
      const author = await userWith('table-author', ['TableAuthor']);

      expect((await tables(viewer.token, 'POST', '', sampleTable('by viewer'))).status).toBe(403);
      const created = await tables(author.token, 'POST', '', sampleTable('by author'));
      expect(created.status).toBe(201);
      const id = created.body.id;
      expect((await tables(viewer.token, 'GET', `/${id}`)).status).toBe(200);
      expect((await tables(viewer.token, 'POST', `/${id}/evaluate`, { input: { age: 30 } })).status).toBe(
        200,
      );
      expect((await tables(stranger, 'POST', `/${id}/evaluate`, { input: { age: 30 } })).status).toBe(403);
      expect((await tables(viewer.token, 'PUT', `/${id}`, sampleTable('by viewer'))).status).toBe(403);
      expect((await tables(author.token, 'DELETE', `/${id}`)).status).toBe(403);
      expect((await tables(viewer.token, 'GET', '/audit')).status).toBe(403);
      expect((await tables(admin, 'DELETE', `/${id}`)).status).toBe(204);
    });
  });

  describe('no privilege escalation (item 2)', () => {
    it('walks every CRUD route with a least-privileged user: each needs its own permission', async () => {
      const nobody = await userWith('nobody', []);
      const victim = await userWith('victim', []);
      const roleId = await role('Plain', []);
      const routes = [
        { method: 'GET', path: '/api/v1/users', needs: 'Users.View' },
        { method: 'GET', path: `/api/v1/users/${victim.id}`, needs: 'Users.View' },
        {
          method: 'POST',
          path: '/api/v1/users',
          needs: 'Users.Create',
          body: () => ({
            userName: `made-${Math.random().toString(36).slice(2, 8)}`,
            password: 'long-password',
          }),
        },
        {
          method: 'PUT',
          path: `/api/v1/users/${victim.id}`,
          needs: 'Users.Update',
          body: () => ({ displayName: 'V' }),
        },
        { method: 'GET', path: '/api/v1/roles', needs: 'Roles.View' },
        { method: 'GET', path: `/api/v1/roles/${roleId}`, needs: 'Roles.View' },
        {
          method: 'POST',
          path: '/api/v1/roles',
          needs: 'Roles.Create',
          body: () => ({ name: `r-${Math.random().toString(36).slice(2, 8)}`, permissions: [] }),
        },
        {
          method: 'POST',
          path: '/api/v1/auth/create-role',
          needs: 'Roles.Create',
          body: () => ({ name: `r-${Math.random().toString(36).slice(2, 8)}` }),
        },
        {
          method: 'PUT',
          path: `/api/v1/roles/${roleId}`,
          needs: 'Roles.Update',
          body: () => ({ description: 'd' }),
        },
        { method: 'POST', path: '/api/v1/auth/keys/rotate', needs: 'SigningKeys.Rotate' },
      ];
      for (const route of routes) {
        const refused = await call(identity.url, route.method, route.path, {
          token: nobody.token,
          body: route.body?.(),
        });
        expect({ route: `${route.method} ${route.path}`, status: refused.status }).toEqual({
          route: `${route.method} ${route.path}`,
          status: 403,
        });
        await role(`only-${route.needs}-${route.method}-${routes.indexOf(route)}`, [route.needs]);
        const holder = await userWith(`holder-${routes.indexOf(route)}`, [
          `only-${route.needs}-${route.method}-${routes.indexOf(route)}`,
        ]);
        const allowed = await call(identity.url, route.method, route.path, {
          token: holder.token,
          body: route.body?.(),
        });
        expect({ route: `${route.method} ${route.path}`, ok: allowed.status < 300 }).toEqual({
          route: `${route.method} ${route.path}`,
          ok: true,
        });
      }
      const deleter = await userWith('deleter', [(await roleNamed('UserDeleter', ['Users.Delete'])).name]);
      expect(
        (await call(identity.url, 'DELETE', `/api/v1/users/${victim.id}`, { token: nobody.token })).status,
      ).toBe(403);
      expect(
        (await call(identity.url, 'DELETE', `/api/v1/users/${victim.id}`, { token: deleter.token })).status,
      ).toBe(200);
      const roleDeleter = await userWith('role-deleter', [
        (await roleNamed('RoleDeleter', ['Roles.Delete', 'Users.View'])).name,
      ]);
      expect(
        (await call(identity.url, 'DELETE', `/api/v1/roles/${roleId}`, { token: nobody.token })).status,
      ).toBe(403);
      expect(
        (await call(identity.url, 'DELETE', `/api/v1/roles/${roleId}`, { token: roleDeleter.token })).status,
      ).toBe(200);
    }, 180_000);

    it('refuses to grant a role or permission the caller does not hold, and to touch a stronger user', async () => {
      const { name: managerRole } = await roleNamed('UserManager', [
        'Users.View',
        'Users.Create',
        'Users.Update',
      ]);
      const manager = await userWith('manager', [managerRole]);
      const me = await call(identity.url, 'GET', '/api/v1/users?pageSize=200', { token: manager.token });
      const managerId = me.body.result.items.find((u: any) => u.userName === 'manager').id;

      // Users.Update alone: no role changes at all (changing roles is Users.AssignRoles)
      const selfAdmin = await call(identity.url, 'PUT', `/api/v1/users/${managerId}`, {
        token: manager.token,
        body: { roles: ['Admin'] },
      });
      expect(selfAdmin.status).toBe(403);
      expect(selfAdmin.body.errors[0].code).toBe('PERMISSION_NOT_HELD');
      const created = await call(identity.url, 'POST', '/api/v1/users', {
        token: manager.token,
        body: { userName: 'sock-puppet', password: 'sock-puppet-pw', roles: ['Admin'] },
      });
      expect(created.status).toBe(403);

      // With Users.AssignRoles: still only roles whose permissions (and policies) the caller holds
      const { name: assignerRole } = await roleNamed('Assigner', [
        'Users.View',
        'Users.Update',
        'Users.AssignRoles',
        'decisions.viewer',
      ]);
      const assigner = await userWith('assigner', [assignerRole]);
      const target = await userWith('target', []);
      for (const roles of [['Admin'], ['UserManager']]) {
        const res = await call(identity.url, 'PUT', `/api/v1/users/${target.id}`, {
          token: assigner.token,
          body: { roles },
        });
        expect(res.status).toBe(403);
      }
      await roleNamed('Approver', []); // the exact name carries cp.approver: the assigner lacks it
      expect(
        (
          await call(identity.url, 'PUT', `/api/v1/users/${target.id}`, {
            token: assigner.token,
            body: { roles: ['Approver'] },
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await call(identity.url, 'PUT', `/api/v1/users/${target.id}`, {
            token: assigner.token,
            body: { roles: ['NoSuchRole'] },
          })
        ).body.errors[0].code,
      ).toBe('UNKNOWN_ROLE');
      const fine = await call(identity.url, 'PUT', `/api/v1/users/${target.id}`, {
        token: assigner.token,
        body: { roles: ['TableViewer'] },
      });
      expect(fine.status).toBe(200);

      // A stronger user cannot be changed: no password reset or deactivation of the administrator
      const adminRow = (
        await call(identity.url, 'GET', '/api/v1/users?pageSize=200', { token: manager.token })
      ).body.result.items.find((u: any) => u.userName === 'admin');
      for (const body of [{ password: 'taken-over-pw' }, { isActive: false }]) {
        const res = await call(identity.url, 'PUT', `/api/v1/users/${adminRow.id}`, {
          token: manager.token,
          body,
        });
        expect(res.status).toBe(403);
      }
      await login(identity.url, ADMIN.userName, ADMIN.password);

      // Roles: no permission one does not hold, no wildcard above one's own
      const { name: roleMaker } = await roleNamed('RoleMaker', ['Roles.Create', 'Roles.Update', 'Users.*']);
      const maker = await userWith('maker', [roleMaker]);
      for (const permissions of [['*'], ['Roles.*'], ['SigningKeys.Rotate'], ['cp.admin']]) {
        const res = await call(identity.url, 'POST', '/api/v1/roles', {
          token: maker.token,
          body: { name: `x-${permissions[0].replace(/\W/g, '')}`, permissions },
        });
        expect({ permissions, status: res.status }).toEqual({ permissions, status: 403 });
      }
      const viaAuth = await call(identity.url, 'POST', '/api/v1/auth/create-role', {
        token: maker.token,
        body: { name: 'Sneaky', permissions: ['*'] },
      });
      expect(viaAuth.status).toBe(403);
      expect(
        (
          await call(identity.url, 'POST', '/api/v1/roles', {
            token: maker.token,
            body: { name: 'UserHelpers', permissions: ['Users.View', 'Users.*'] },
          })
        ).status,
      ).toBe(201);
      const adminRole = (
        await call(identity.url, 'GET', '/api/v1/roles?pageSize=200', { token: admin })
      ).body.result.items.find((r: any) => r.name === 'Admin');
      expect(
        (
          await call(identity.url, 'PUT', `/api/v1/roles/${adminRole.id}`, {
            token: maker.token,
            body: { permissions: [] },
          })
        ).status,
      ).toBe(403);
    }, 180_000);
  });

  describe('policies from permissions and exact roles (item 3)', () => {
    it('drops a deleted role from the token: its policies go with it', async () => {
      const { name } = await roleNamed('Viewer', []);
      const user = await userWith('cp-viewer', [name]);
      expect(decodeJwt(user.token)).toMatchObject({ roles: ['Viewer'] });
      const roleRow = (
        await call(identity.url, 'GET', '/api/v1/roles?pageSize=200', { token: admin })
      ).body.result.items.find((r: any) => r.name === 'Viewer');
      expect(
        (await call(identity.url, 'DELETE', `/api/v1/roles/${roleRow.id}`, { token: admin })).status,
      ).toBe(200);
      const again = await login(identity.url, 'cp-viewer', 'cp-viewer-password');
      expect(decodeJwt(again.AccessToken)).toMatchObject({ roles: [], permissions: [] });
    });
  });

  describe('login lockout (item 4)', () => {
    it('answers 20 parallel logins with the right password with 200 or 429, never a 500 (no deadlock)', async () => {
      await userWith('parallel', []);
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          call(identity.url, 'POST', '/api/v1/auth/login', {
            body: { userName: 'parallel', password: 'parallel-password' },
          }),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((st) => st !== 200 && st !== 429)).toEqual([]);
      expect(statuses.filter((st) => st === 200).length).toBeGreaterThanOrEqual(1);
    }, 120_000);

    it('checks at most LoginMaxFailures of 100 parallel wrong passwords; the rest are 429 unchecked', async () => {
      await userWith('burst', []);
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          call(identity.url, 'POST', '/api/v1/auth/login', {
            body: { userName: 'burst', password: `wrong-${i}` },
          }),
        ),
      );
      const checked = results.filter((r) => r.status === 401).length;
      const refused = results.filter((r) => r.status === 429).length;
      expect({ checked, refused }).toEqual({ checked: 5, refused: 95 });
      expect(
        results.filter((r) => r.status === 429).every((r) => Number(r.headers.get('retry-after')) >= 1),
      ).toBe(true);
      // even the right password is refused now
      const right = await call(identity.url, 'POST', '/api/v1/auth/login', {
        body: { userName: 'burst', password: 'burst-password' },
      });
      expect(right.status).toBe(429);
      console.log(
        `100 parallel wrong logins: ${checked} checked, ${refused} refused in ${Date.now() - started} ms`,
      );
    }, 180_000);

    it('counts one account whatever form of its name or e-mail is typed', async () => {
      const created = await call(identity.url, 'POST', '/api/v1/users', {
        token: admin,
        body: { userName: 'alice', email: 'alice@example.com', password: 'alice-password-1' },
      });
      expect(created.status).toBe(201);
      const tries = ['alice@example.com', 'ALİCE', 'alice', ' Alice ', 'ＡＬＩＣＥ'];
      for (const userName of tries) {
        const res = await call(identity.url, 'POST', '/api/v1/auth/login', {
          body: { userName, password: 'nope-nope' },
        });
        expect({ userName, status: res.status }).toEqual({ userName, status: 401 });
      }
      const locked = await call(identity.url, 'POST', '/api/v1/auth/login', {
        body: { userName: 'Alice@Example.com', password: 'alice-password-1' },
      });
      expect(locked.status).toBe(429);
    });

    it('keeps neither the typed name nor a password typed into it in the audit (item 11)', async () => {
      await call(identity.url, 'POST', '/api/v1/auth/login', {
        body: { userName: 'my-secret-password-typed-here', password: 'whatever-1' },
      });
      const rows = await identity.service.app
        .get(UnitOfWork)
        .run((m) => m.query(`SELECT details::text AS d FROM auth_audit WHERE event = 'login-failed'`));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.d).not.toContain('my-secret-password-typed-here');
        expect(row.d).not.toContain('alice@example.com');
      }
    });
  });

  describe('sessions end on account changes (item 5)', () => {
    const changes: { name: string; apply: (userId: string, roleId: string) => Promise<number> }[] = [
      {
        name: 'password change',
        apply: async (id) =>
          (
            await call(identity.url, 'PUT', `/api/v1/users/${id}`, {
              token: admin,
              body: { password: 'brand-new-pw' },
            })
          ).status,
      },
      {
        name: 'deactivation',
        apply: async (id) =>
          (
            await call(identity.url, 'PUT', `/api/v1/users/${id}`, {
              token: admin,
              body: { isActive: false },
            })
          ).status,
      },
      {
        name: 'role change',
        apply: async (id) =>
          (
            await call(identity.url, 'PUT', `/api/v1/users/${id}`, {
              token: admin,
              body: { roles: [] },
            })
          ).status,
      },
      {
        name: 'deletion',
        apply: async (id) =>
          (await call(identity.url, 'DELETE', `/api/v1/users/${id}`, { token: admin })).status,
      },
      {
        name: 'permission change of a role',
        apply: async (_id, roleId) =>
          (
            await call(identity.url, 'PUT', `/api/v1/roles/${roleId}`, {
              token: admin,
              body: { permissions: [] },
            })
          ).status,
      },
      {
        name: 'role deletion',
        apply: async (_id, roleId) =>
          (await call(identity.url, 'DELETE', `/api/v1/roles/${roleId}`, { token: admin })).status,
      },
    ];

    it.each(changes.map((c, i) => [c.name, i] as const))(
      'after a %s: refresh refused at once, the access token refused everywhere within a second',
      async (_name, index) => {
        const roleId = await role(`Session-${index}`, ['decisions.viewer']);
        const user = await userWith(`session-${index}`, [`Session-${index}`]);
        const pair = await login(identity.url, `session-${index}`, `session-${index}-password`);
        const probes = async (token: string) => [
          (await call(identity.url, 'GET', '/api/v1/auth/ui-engine/current', { token })).status,
          (await call(decisions.url, 'GET', '/api/v1/decision-tables', { token })).status,
        ];
        expect(await probes(pair.AccessToken)).toEqual([200, 200]);
        expect(await probes(user.token)).toEqual([200, 200]);
        expect(await changes[index].apply(user.id, roleId)).toBe(200);
        const started = Date.now();
        let seen = await probes(pair.AccessToken);
        while (seen.some((s) => s !== 401) && Date.now() - started < 1_500) {
          await new Promise((r) => setTimeout(r, 25));
          seen = await probes(pair.AccessToken);
        }
        expect(seen).toEqual([401, 401]);
        expect(Date.now() - started).toBeLessThanOrEqual(1_000);
        expect(await probes(user.token)).toEqual([401, 401]);
        // the session's refresh token is revoked: refused once its access token has expired, too
        const restoreClock = clockAhead(PAST_ACCESS_TOKEN_EXPIRY_MS);
        try {
          const refreshed = await call(identity.url, 'POST', '/api/v1/auth/refresh-token', {
            token: pair.AccessToken,
            body: { refreshToken: pair.RefreshToken },
          });
          expect([refreshed.status, refreshed.body.errors[0].code]).toEqual([401, 'REFRESH_TOKEN_INVALID']);
        } finally {
          restoreClock();
        }
      },
      30_000,
    );
  });

  describe('bad input is a 400 naming the field, never a 500 (item 10)', () => {
    it('refuses NUL bytes and lone surrogates in user and role fields', async () => {
      const cases: { path: string; body: Record<string, unknown>; field: string }[] = [
        {
          path: '/api/v1/users',
          body: { userName: 'nul\u0000user', password: 'password-123' },
          field: 'userName',
        },
        {
          path: '/api/v1/users',
          body: { userName: 'nul-display', password: 'password-123', displayName: 'A\u0000B' },
          field: 'displayName',
        },
        {
          path: '/api/v1/users',
          body: { userName: 'surrogate', password: 'password-123', displayName: 'A\ud800B' },
          field: 'displayName',
        },
        { path: '/api/v1/roles', body: { name: 'Nul\u0000Role' }, field: 'name' },
        {
          path: '/api/v1/roles',
          body: { name: 'NulDescription', description: 'x\u0000' },
          field: 'description',
        },
        {
          path: '/api/v1/auth/create-role',
          body: { name: 'NulPerm', permissions: ['Users.\u0000View'] },
          field: 'permissions',
        },
      ];
      for (const c of cases) {
        const res = await call(identity.url, 'POST', c.path, { token: admin, body: c.body });
        expect({ path: c.path, field: c.field, status: res.status }).toEqual({
          path: c.path,
          field: c.field,
          status: 400,
        });
        expect(JSON.stringify(res.body.errors)).toContain(c.field);
      }
      const register = await call(identity.url, 'POST', '/api/v1/auth/register', {
        body: { userName: 'reg', password: 'password-123', displayName: '\u0000' },
      });
      expect(register.status).toBe(400);
      const loginNul = await call(identity.url, 'POST', '/api/v1/auth/login', {
        body: { userName: 'admin\u0000', password: 'x' },
      });
      expect(loginNul.status).toBe(400);
    });

    it('refuses JSON nested 5,000 deep with 400 BODY_TOO_DEEP', async () => {
      const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
      for (const path of ['/api/v1/users', '/api/v1/roles', '/api/v1/auth/register', '/api/v1/auth/login']) {
        const res = await fetch(`${identity.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          body: deep,
        });
        const body = (await res.json()) as any;
        expect({ path, status: res.status, code: body.errors?.[0]?.code }).toEqual({
          path,
          status: 400,
          code: 'BODY_TOO_DEEP',
        });
      }
    });
  });

  describe('stored keys (item 11)', () => {
    it('keeps a generated private key encrypted at rest, and still signs with it after a rotation', async () => {
      const rotated = await call(identity.url, 'POST', '/api/v1/auth/keys/rotate', { token: admin });
      expect(rotated.status).toBe(200);
      const rows = await identity.service.app
        .get(UnitOfWork)
        .run((m) => m.query(`SELECT private_pem FROM auth_signing_keys WHERE private_pem IS NOT NULL`));
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.private_pem).toContain('-----BEGIN ENCRYPTED PRIVATE KEY-----');
        expect(row.private_pem).not.toContain('-----BEGIN PRIVATE KEY-----');
      }
      expect((await login(identity.url, ADMIN.userName, ADMIN.password)).AccessToken).toBeTruthy();
    });
  });

  async function roleNamed(name: string, permissions: string[]) {
    await role(name, permissions);
    return { name };
  }
});

function sampleTable(name: string) {
  return {
    name,
    hitPolicy: 'First',
    inputColumns: [{ name: 'age', type: 'number', required: true }],
    outputColumns: [{ name: 'risk', type: 'string' }],
    rows: [
      { id: 'r1', priority: 1, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
      { id: 'r2', priority: 2, inputConditions: { age: '>= 18' }, outputs: { risk: 'adult' } },
    ],
  };
}
