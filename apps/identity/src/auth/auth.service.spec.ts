import { AuthenticatedUser, RequestContext } from '@arbiter/platform';
import type { EntityManager } from 'typeorm';
import {
  InMemoryAudit,
  InMemoryLoginAttempts,
  inMemoryUnitOfWork as uow,
} from '../../test/in-memory-repositories';
import { CrudService } from '../crud';
import { IdentityAuthSettings } from '../settings';
import { AuthService } from './auth.service';
import { LoginThrottle } from './login-throttle';
import { PasswordHasher } from './password-hasher';
import { RoleRepository } from './persistence/role.repository';
import { LoginCandidate, UserRecord, UserRepository } from './persistence/user.repository';
import { TokenService } from './token.service';

// Unit test: login, registration and permissions over in-memory repositories; tokens are stubbed.

const hasher = new PasswordHasher();
const USER_ID = '0b7c6f3e-7f0e-4f35-9d6e-2f1d2a3b4c5d';

class Users extends UserRepository {
  candidate: LoginCandidate | undefined;
  readonly inserted: string[] = [];
  record: UserRecord = {
    id: USER_ID,
    tenantId: 'default',
    userName: 'alice',
    roles: ['Viewer'],
    permissions: ['cp.viewer'],
  };
  override async findLoginCandidate() {
    return this.candidate;
  }
  override async findWithPermissions(_m: EntityManager, id: string) {
    return id === USER_ID && this.candidate?.is_active !== false ? this.record : undefined;
  }
  override async insertIfNameFree(_m: EntityManager, user: { userName: string }) {
    if (this.inserted.includes(user.userName)) return false;
    this.inserted.push(user.userName);
    return true;
  }
}

class Roles extends RoleRepository {
  readonly inserted: string[] = [];
  override async insertIfNameFree(_m: EntityManager, role: { name: string; permissions: string[] }) {
    const entry = `${role.name}:${role.permissions.join(',')}`;
    if (!this.inserted.includes(entry)) this.inserted.push(entry);
  }
}

describe('AuthService', () => {
  let users: Users;
  let roles: Roles;
  let audit: InMemoryAudit;
  let crud: { create: jest.Mock };
  let issued: UserRecord[];
  const settings = Object.assign(new IdentityAuthSettings(), {
    allowSelfRegistration: true,
    loginMaxFailures: 2,
    bootstrapAdminUserName: 'admin',
    bootstrapAdminPassword: 'admin-password',
  });
  const make = (overrides: Partial<IdentityAuthSettings> = {}) =>
    new AuthService(
      uow,
      hasher,
      new LoginThrottle(uow, new InMemoryLoginAttempts(), settings),
      {
        issue: async (_m: EntityManager, user: UserRecord) => {
          issued.push(user);
          return { id: 'row', AccessToken: 'access', RefreshToken: 'refresh', TokenType: 'Bearer' };
        },
      } as unknown as TokenService,
      crud as unknown as CrudService,
      users,
      roles,
      audit,
      Object.assign(new IdentityAuthSettings(), settings, overrides),
    );

  beforeEach(async () => {
    users = new Users();
    users.candidate = { id: USER_ID, password_hash: await hasher.hash('right password'), is_active: true };
    roles = new Roles();
    audit = new InMemoryAudit();
    crud = { create: jest.fn(async (_def, dto) => ({ entityId: 'new', ...dto })) };
    issued = [];
  });

  it('logs in with the right password: a token pair for the user with its permissions, audited', async () => {
    const pair = await make().login('alice', 'right password', '10.0.0.1');
    expect(pair).toEqual({ AccessToken: 'access', RefreshToken: 'refresh', TokenType: 'Bearer' });
    expect(issued).toEqual([users.record]);
    expect(audit.events).toEqual(['login']);
  });

  it('refuses a wrong password or an unknown user alike (401 INVALID_CREDENTIALS), then locks out (429)', async () => {
    const auth = make();
    await expect(auth.login('alice', 'wrong', 'ip')).rejects.toMatchObject({
      status: 401,
      code: 'INVALID_CREDENTIALS',
    });
    // the second failure uses the last attempt (checked, 401) and locks: the right password then gets 429
    await expect(auth.login('alice', 'wrong', 'ip')).rejects.toMatchObject({ status: 401 });
    await expect(auth.login('alice', 'right password', 'ip')).rejects.toMatchObject({ status: 429 });
    users.candidate = undefined;
    await expect(auth.login('nobody', 'x', 'ip')).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(audit.events).toEqual(['login-failed', 'login-failed', 'login-failed']);
    expect(issued).toEqual([]);
  });

  it('refuses a disabled user even with the right password', async () => {
    users.candidate!.is_active = false;
    await expect(make().login('alice', 'right password', 'ip')).rejects.toMatchObject({
      code: 'INVALID_CREDENTIALS',
    });
  });

  it('registers through the users CRUD with no roles, when allowed and the password is long enough', async () => {
    await expect(make().register({ userName: 'bob', password: 'long enough' })).resolves.toMatchObject({
      entityId: 'new',
      roles: [],
    });
    await expect(make().register({ userName: 'bob', password: 'short' })).rejects.toMatchObject({
      status: 400,
    });
    await expect(
      make({ allowSelfRegistration: false }).register({ userName: 'bob', password: 'long enough' }),
    ).rejects.toMatchObject({ status: 403, code: 'REGISTRATION_DISABLED' });
  });

  it('seeds the bootstrap administrator and its Admin role once', async () => {
    const auth = make();
    await auth.onApplicationBootstrap();
    await auth.onApplicationBootstrap();
    expect(users.inserted).toEqual(['admin']);
    expect(roles.inserted).toEqual(['Admin:*']);
  });

  it("shows a user's permissions to the user and to holders of Users.View only", async () => {
    const caller = (id: string, permissions: string[] = []) =>
      ({ id, name: 'x', roles: [], permissions, claims: {} }) as AuthenticatedUser;
    const auth = make();
    await expect(
      RequestContext.run({}, () => auth.userPermissions(USER_ID, caller(USER_ID))),
    ).resolves.toEqual({
      userId: USER_ID,
      userName: 'alice',
      tenantId: 'default',
      roles: ['Viewer'],
      permissions: ['cp.viewer'],
    });
    await expect(auth.userPermissions(USER_ID, caller('someone else'))).rejects.toMatchObject({
      status: 403,
    });
    await expect(auth.userPermissions('not-a-user', caller('admin', ['Users.View']))).rejects.toMatchObject({
      status: 404,
    });
  });
});
