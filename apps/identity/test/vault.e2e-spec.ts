import { Configuration } from '@arbiter/platform';
import { startServiceForTest } from '@arbiter/testing';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { createSecretProvider, VaultSecretProvider } from '../src/secrets/secret-provider';
import { identityService, VaultSettings } from '../src';
import { ADMIN, call, login } from './helpers';

/** A tiny Vault KV v2 fake: GET /v1/<mount>/data/<path> with X-Vault-Token. */
function fakeVault(secrets: Record<string, Record<string, string>>, token: string) {
  const requests: { url: string; namespace?: string }[] = [];
  let hang = false;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push({ url: req.url ?? '', namespace: req.headers['x-vault-namespace'] as string | undefined });
    if (hang) return; // never answers
    if (req.headers['x-vault-token'] !== token) {
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"errors":["permission denied"]}');
      return;
    }
    const match = /^\/v1\/([^/]+)\/data\/(.+)$/.exec(req.url ?? '');
    const data = match ? secrets[`${match[1]}/${match[2]}`] : undefined;
    if (!data) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":[]}');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ data: { data, metadata: { version: 1 } } }));
  });
  return {
    requests,
    setHang: (value: boolean) => (hang = value),
    start: () =>
      new Promise<string>((resolve) =>
        server.listen(0, '127.0.0.1', () =>
          resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
        ),
      ),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function settings(overrides: Partial<VaultSettings>): VaultSettings {
  return Object.assign(new VaultSettings(), overrides);
}

describe('secret provider', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const vault = fakeVault(
    { 'secret/arbiter/identity': { 'TokenConfigs:PrivateKey': privatePem, other: 'x' } },
    's.token',
  );
  let address: string;
  beforeAll(async () => (address = await vault.start()));
  afterAll(() => vault.stop());

  it('reads configuration and environment by default', async () => {
    const configuration = new Configuration();
    configuration.set('TokenConfigs:PrivateKey', 'from-config');
    const provider = createSecretProvider(settings({ type: 'Configuration' }), configuration);
    expect(await provider.get('TokenConfigs:PrivateKey')).toBe('from-config');
    expect(await provider.get('Missing:Key')).toBeUndefined();
  });

  it('reads KV v2 with token auth and namespace, and caches for CacheDurationMinutes', async () => {
    const provider = new VaultSecretProvider(
      settings({
        type: 'Vault',
        address,
        token: 's.token',
        secretsPath: 'secret/arbiter/identity',
        namespace: 'team-a',
      }),
    );
    const before = vault.requests.length;
    expect(await provider.get('other')).toBe('x');
    expect(await provider.get('TokenConfigs:PrivateKey')).toBe(privatePem);
    expect(vault.requests.length - before).toBe(1);
    expect(vault.requests.at(-1)).toEqual({ url: '/v1/secret/data/arbiter/identity', namespace: 'team-a' });
  });

  it('fails on a wrong token and after RequestTimeoutSeconds', async () => {
    const wrong = new VaultSecretProvider(
      settings({ type: 'Vault', address, token: 'bad', secretsPath: 'secret/arbiter/identity' }),
    );
    await expect(wrong.get('other')).rejects.toThrow(/Vault answered 403/);
    vault.setHang(true);
    const slow = new VaultSecretProvider(
      settings({
        type: 'Vault',
        address,
        token: 's.token',
        secretsPath: 'secret/arbiter/identity',
        requestTimeoutSeconds: 1,
      }),
    );
    const started = Date.now();
    await expect(slow.get('other')).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3_000);
    vault.setHang(false);
  });

  it('identity signs with the private key held in Vault', async () => {
    const sut = await startServiceForTest(identityService, 'ConnectionStrings:LicenseDb', {
      overrides: {
        'VaultConfigs:Type': 'Vault',
        'VaultConfigs:Address': address,
        'VaultConfigs:Token': 's.token',
        'VaultConfigs:SecretsPath': 'secret/arbiter/identity',
      },
    });
    try {
      const jwks = (await call(sut.url, 'GET', '/.well-known/jwks.json')).body;
      const n = (createPublicKey(privateKey).export({ format: 'jwk' }) as { n: string }).n;
      expect(jwks.keys.map((k: { n: string }) => k.n)).toEqual([n]);
      const pair = await login(sut.url, ADMIN.userName, ADMIN.password);
      expect((await call(sut.url, 'GET', '/api/v1/users', { token: pair.AccessToken })).status).toBe(200);
    } finally {
      await sut.stop();
    }
  });
});
