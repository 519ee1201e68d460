import { grants, hasPolicy } from '@arbiter/auth';
import {
  UI_MANIFEST_CONTRIBUTIONS,
  UI_MANIFEST_VERSION,
  UiManifest,
  UiRoutingManifest,
} from '@arbiter/contracts';
import { AppError, AuthenticatedUser, RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { createHash, randomUUID } from 'node:crypto';
import { CrudService } from '../crud';
import { IdentityAuthSettings } from '../settings';
import { AuthErrors as E } from './auth-errors';
import { ROLE_DEFINITION, userDefinition } from './user-role-crud';
import { LoginThrottle, normalizeIdentifier } from './login-throttle';
import { PasswordHasher } from './password-hasher';
import { AuthAuditRepository } from './persistence/auth-audit.repository';
import { RoleRepository } from './persistence/role.repository';
import { UserRepository } from './persistence/user.repository';
import { TokenPair, TokenService } from './token.service';

/** A user's effective permissions: the union of the permissions of the user's roles. */
export interface UserPermissions {
  userId: string;
  userName: string;
  tenantId: string;
  roles: string[];
  permissions: string[];
}

/**
 * Who may get a token and what they may do: the bootstrap administrator, registration, login (password
 * check, throttling, audit), roles, a user's effective permissions, the UI manifest. Tokens themselves
 * are `TokenService`'s.
 */
@Injectable()
export class AuthService implements OnApplicationBootstrap {
  private readonly logger = new Logger('AuthService');

  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @Inject(LoginThrottle) private readonly throttle: LoginThrottle,
    @Inject(TokenService) private readonly tokens: TokenService,
    @Inject(CrudService) private readonly crud: CrudService,
    @Inject(UserRepository) private readonly users: UserRepository,
    @Inject(RoleRepository) private readonly roles: RoleRepository,
    @Inject(AuthAuditRepository) private readonly auditLog: AuthAuditRepository,
    @Inject(IdentityAuthSettings) private readonly settings: IdentityAuthSettings,
  ) {}

  /** Seeds the bootstrap administrator (`IdentityAuth:BootstrapAdmin*`) and its `Admin` role (`*`). */
  async onApplicationBootstrap(): Promise<void> {
    const s = this.settings;
    if (!s.bootstrapAdminUserName.trim() || !s.bootstrapAdminPassword) return;
    const tenantId = s.bootstrapAdminTenant;
    const hash = await this.hasher.hash(s.bootstrapAdminPassword);
    await this.uow.run(
      async (m) => {
        await this.roles.insertIfNameFree(m, {
          id: randomUUID(),
          tenantId,
          name: 'Admin',
          description: 'Everything (seeded)',
          permissions: ['*'],
        });
        const inserted = await this.users.insertIfNameFree(m, {
          id: randomUUID(),
          tenantId,
          userName: s.bootstrapAdminUserName.trim(),
          passwordHash: hash,
          roles: ['Admin'],
        });
        if (inserted)
          this.logger.log({
            msg: 'bootstrap administrator created',
            userName: s.bootstrapAdminUserName,
            tenantId,
          });
      },
      { tenantId },
    );
  }

  async register(dto: { userName: string; password: string; email?: string; displayName?: string }) {
    if (!this.settings.allowSelfRegistration) {
      throw AppError.forbidden('Self-registration is disabled', E.RegistrationDisabled);
    }
    if (dto.password.length < this.settings.minPasswordLength) {
      throw AppError.validation([
        {
          field: 'password',
          message: `password must be at least ${this.settings.minPasswordLength} characters`,
        },
      ]);
    }
    // Nobody joins an existing tenant by registering: only the tenants listed as open, or a tenant
    // that has no user yet (the registrant is its first, without roles; an administrator grants them).
    const tenantId = RequestContext.tenantId();
    const open = this.settings.openTenants().includes(tenantId);
    return this.crud.create(userDefinition(this.hasher), { ...dto, roles: [], isActive: true }, async (m) => {
      if (!open && (await this.users.lockTenantAndHasUsers(m, tenantId))) {
        throw AppError.forbidden(
          `Tenant '${tenantId}' already has users: ask its administrator for an account`,
          E.TenantClosed,
        );
      }
    });
  }

  async login(userName: string, password: string, clientAddress: string): Promise<TokenPair> {
    const tenantId = RequestContext.tenantId();
    const typed = userName.normalize('NFKC').trim();
    const normalized = normalizeIdentifier(userName);
    const found = await this.uow.run((m) => this.users.findLoginCandidate(m, typed, normalized));
    // Counted before the password is checked: of parallel attempts at most the limit get checked.
    const keys = this.throttle.keys(tenantId, { userId: found?.id, identifier: userName }, clientAddress);
    await this.throttle.reserve(keys);
    const valid = await this.hasher.verify(found?.password_hash, password);
    if (!found || !valid || !found.is_active) {
      // Never the typed name (a password typed into it would be kept): the user id, or a hash.
      await this.uow.run((m) =>
        this.auditLog.record(m, tenantId, 'login-failed', found?.id ?? null, {
          identifierHash: found
            ? null
            : createHash('sha256').update(`${tenantId}|${normalized}`).digest('hex'),
          clientAddress,
        }),
      );
      throw AppError.unauthorized('Invalid user name or password', E.InvalidCredentials);
    }
    await this.throttle.succeeded(keys);
    const pair = await this.uow.run(async (m) => {
      const user = await this.users.findWithPermissions(m, found.id);
      if (!user) throw AppError.unauthorized('Invalid user name or password', E.InvalidCredentials);
      const issued = await this.tokens.issue(m, user);
      await this.auditLog.record(m, tenantId, 'login', user.id, { clientAddress });
      return issued;
    });
    const { id: _id, ...result } = pair;
    return result;
  }

  async createRole(dto: { name: string; description?: string; permissions?: string[] }) {
    return this.crud.create(ROLE_DEFINITION, { ...dto, permissions: dto.permissions ?? [] });
  }

  /** Self, or a caller with `Users.View`. */
  async userPermissions(userId: string, caller: AuthenticatedUser): Promise<UserPermissions> {
    if (caller.id !== userId && !grants(caller.permissions, 'Users.View')) {
      throw AppError.forbidden('Missing permission: Users.View (All)');
    }
    const user = await this.uow.run((m) =>
      /^[0-9a-f-]{36}$/i.test(userId)
        ? this.users.findWithPermissions(m, userId)
        : Promise.resolve(undefined),
    );
    if (!user) throw AppError.notFound(E.UserNotFound, `User '${userId}' not found`);
    return {
      userId: user.id,
      userName: user.userName,
      tenantId: user.tenantId,
      roles: user.roles,
      permissions: user.permissions,
    };
  }

  uiManifest(user: AuthenticatedUser, minimalFor?: string): UiManifest | UiRoutingManifest {
    const entries = Object.values(UI_MANIFEST_CONTRIBUTIONS)
      .flat()
      .filter(
        (e) =>
          (!e.requiredPermission || grants(user.permissions, e.requiredPermission)) &&
          (!e.requiredPolicy || hasPolicy(user, e.requiredPolicy)),
      )
      .sort((a, b) => a.order - b.order);
    if (minimalFor === 'routing') {
      return {
        version: UI_MANIFEST_VERSION,
        routes: entries.map((e) => ({ id: e.id, route: e.route, service: e.service })),
      };
    }
    return { version: UI_MANIFEST_VERSION, generatedAt: new Date().toISOString(), entries };
  }
}
