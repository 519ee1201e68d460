import {
  ApiKeyAuthenticator,
  hashApiKey,
  parseApiKeyConfig,
  parseServiceApiKeys,
  SERVICE_KEY_TENANT,
} from './api-keys';

describe('API keys', () => {
  const authenticator = new ApiKeyAuthenticator(
    parseApiKeyConfig(
      {
        acme: `${hashApiKey('acme-key-1')},${hashApiKey('acme-key-2')}`,
        globex: [hashApiKey('globex-key')],
        [SERVICE_KEY_TENANT]: hashApiKey('service-key'),
      },
      'Authentication:ApiKeys',
    ),
  );

  it('authenticates a tenant key as that tenant, by hash only', () => {
    for (const key of ['acme-key-1', 'acme-key-2'])
      expect(authenticator.authenticate(key)).toMatchObject({
        tenantId: 'acme',
        roles: ['ApiKey'],
        claims: { auth_method: 'api_key', tenant_id: 'acme' },
      });
    expect(authenticator.authenticate('globex-key')?.tenantId).toBe('globex');
  });

  it('authenticates a service key without a tenant (the request names the tenant it acts for)', () => {
    const user = authenticator.authenticate('service-key');
    expect(user).toMatchObject({ roles: ['ApiKey', 'Service'], claims: { auth_method: 'service_key' } });
    expect(user?.tenantId).toBeUndefined();
  });

  it('refuses unknown keys', () => {
    expect(authenticator.authenticate('acme-key-3')).toBeUndefined();
    expect(authenticator.authenticate('')).toBeUndefined();
  });

  it('refuses a configured value that is not a SHA-256 hash, naming the tenant', () => {
    expect(() => parseApiKeyConfig({ acme: 'plain-text-key' }, 'Authentication:ApiKeys')).toThrow(
      'Authentication:ApiKeys:acme must hold sha256:<64 hex> hashes',
    );
  });

  it('reads service keys under a key an environment variable can name (no `*`)', () => {
    const entries = parseServiceApiKeys(
      ` ${hashApiKey('svc-1')} ,${hashApiKey('svc-2')}`,
      'Authentication:ServiceApiKeys',
    );
    expect(entries.map((e) => e.tenantId)).toEqual([SERVICE_KEY_TENANT, SERVICE_KEY_TENANT]);
    const keys = new ApiKeyAuthenticator(entries);
    expect(keys.authenticate('svc-2')).toMatchObject({ roles: ['ApiKey', 'Service'] });
    expect(parseServiceApiKeys('', 'Authentication:ServiceApiKeys')).toEqual([]);
    expect(parseServiceApiKeys(undefined, 'Authentication:ServiceApiKeys')).toEqual([]);
    expect(() => parseServiceApiKeys('svc-1', 'Authentication:ServiceApiKeys')).toThrow(
      'Authentication:ServiceApiKeys must hold sha256:<64 hex> hashes',
    );
  });
});
