import { generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { MigratedDatabase, startMigratedDatabase } from '@arbiter/testing';
import { IDENTITY_MIGRATIONS } from '../database';
import { SecretProvider } from '../secrets';
import { TokenSettings } from '../settings';
import { KeyStore } from './key-store';
import { SigningKeyRepository } from './persistence/signing-key.repository';

// The key store over its repository on a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL):
// generated keys are shared by restarts and replicas, and rotation keeps the old key published.

const noSecrets = { get: async () => undefined } as unknown as SecretProvider;

describe('KeyStore', () => {
  let db: MigratedDatabase;
  beforeAll(async () => {
    db = await startMigratedDatabase([], IDENTITY_MIGRATIONS);
  });
  afterAll(() => db?.stop());

  const start = async (settings: Partial<TokenSettings> = {}, environment = 'Testing') => {
    const store = new KeyStore(
      db.uow,
      new SigningKeyRepository(),
      Object.assign(new TokenSettings(), { symmetricSecretKey: 'k'.repeat(40) }, settings),
      noSecrets,
      environment as never,
    );
    await store.onModuleInit();
    return store;
  };

  it('generates an RS256 key once in Testing and reuses it after a restart (or on another replica)', async () => {
    const first = await start();
    const again = await start();
    expect(first.current()).toMatchObject({ alg: 'RS256' });
    expect(again.current()).toEqual(first.current());
    const token = await first.sign({ sub: 'u' }, 'default');
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: 'RS256', kid: first.current().kid });
    expect((await again.jwks()).keys.map((k) => k.kid)).toEqual([first.current().kid]);
  });

  it('rotates a generated key through the database: published first, signing on every replica from activatesAt', async () => {
    // (the settings are not validated here: the service refuses a publish delay under 6 s)
    const a = await start({ keyPublishDelaySeconds: 2 });
    const b = await start({ keyPublishDelaySeconds: 2 });
    const before = a.current().kid;
    // both replicas asked at once: one rotation, both answer it
    const [ra, rb] = await Promise.all([a.rotate(), b.rotate()]);
    expect(rb).toEqual(ra);
    expect(ra.previousKid).toBe(before);
    expect(ra.kid).not.toBe(before);
    expect(Date.parse(ra.activatesAt)).toBeGreaterThan(Date.now());
    // published at once, not signing yet, on either replica
    expect((await b.jwks()).keys.map((k) => k.kid)).toEqual(expect.arrayContaining([ra.kid, before]));
    for (const store of [a, b]) {
      expect(decodeProtectedHeader(await store.sign({ sub: 'u' }, 'default')).kid).toBe(before);
    }
    // asking again while it is pending answers the same rotation
    expect(await a.rotate()).toEqual(ra);
    await new Promise((r) => setTimeout(r, Date.parse(ra.activatesAt) - Date.now() + 50));
    for (const store of [a, b]) {
      expect(decodeProtectedHeader(await store.sign({ sub: 'u' }, 'default')).kid).toBe(ra.kid);
      expect(await store.resolve(before)).toMatchObject({ kid: before, alg: 'RS256' });
    }
    // the old key stays published for its last tokens; a replica that starts now signs with the new key
    expect((await a.jwks()).keys.map((k) => k.kid)).toEqual(expect.arrayContaining([ra.kid, before]));
    const c = await start();
    expect(decodeProtectedHeader(await c.sign({ sub: 'u' }, 'default')).kid).toBe(ra.kid);
    expect(c.current().kid).toBe(ra.kid);
  });

  it('refuses to rotate a configured key (409 KEYS_CONFIGURED), and never publishes an HMAC secret', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const configured = await start({
      privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    });
    await expect(configured.rotate()).rejects.toMatchObject({ status: 409, code: 'KEYS_CONFIGURED' });
    const hmac = await start({ useRsa: false, symmetricSecretKey: 'x'.repeat(40) });
    expect(hmac.current().alg).toBe('HS256');
    expect((await hmac.jwks()).keys.every((k) => k.alg === 'RS256')).toBe(true);
    expect(await hmac.resolve(hmac.current().kid)).toMatchObject({ alg: 'HS256' });
  });

  it('refuses to start without a configured key outside Development and Testing', async () => {
    await expect(start({}, 'Production')).rejects.toThrow(/PrivateKeyPath/);
  });
});
