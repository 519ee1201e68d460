import { RequestContext, resolveTenant } from './request-context';

describe('tenant resolution', () => {
  it('prefers claim, then header, then ambient, then default', () => {
    expect(resolveTenant({ claimTenantId: 'c', headerTenantId: 'h', ambientTenantId: 'a' })).toBe('c');
    expect(resolveTenant({ headerTenantId: 'h', ambientTenantId: 'a' })).toBe('h');
    expect(resolveTenant({ ambientTenantId: 'a' })).toBe('a');
    expect(resolveTenant({ claimTenantId: ' ', headerTenantId: '' })).toBe('default');
  });
});

describe('actor resolution', () => {
  it('without authentication: body actor, then X-Actor, then control-plane', () => {
    RequestContext.run({ headerActor: 'header-bob' }, () => {
      expect(RequestContext.actor('body-alice')).toBe('body-alice');
      expect(RequestContext.actor()).toBe('header-bob');
    });
    expect(RequestContext.actor()).toBe('control-plane');
  });

  it("with authentication the token's user acts; a body actor or X-Actor naming someone else is refused", () => {
    RequestContext.run({}, () => {
      RequestContext.setUser({ id: '1', name: 'token-carol', roles: [], permissions: [], claims: {} });
      expect(RequestContext.actor()).toBe('token-carol');
      expect(RequestContext.actor('Token-Carol')).toBe('token-carol');
      expect(() => RequestContext.actor('mallory')).toThrow(
        expect.objectContaining({ status: 403, code: 'ACTOR_MISMATCH' }),
      );
    });
    RequestContext.run({ headerActor: 'header-bob' }, () => {
      RequestContext.setUser({ id: '1', name: 'token-carol', roles: [], permissions: [], claims: {} });
      expect(() => RequestContext.actor()).toThrow(expect.objectContaining({ code: 'ACTOR_MISMATCH' }));
      expect(RequestContext.actorLabel()).toBe('token-carol');
    });
  });
});

describe('tenant resolution with a user', () => {
  it('lets the verified tenant claim outrank the header', () => {
    RequestContext.run({ headerTenantId: 'from-header', tenantId: 'from-header' }, () => {
      RequestContext.setUser({
        id: '1',
        name: 'u',
        tenantId: 'from-claim',
        roles: [],
        permissions: [],
        claims: {},
      });
      expect(RequestContext.tenantId()).toBe('from-claim');
    });
  });
});
