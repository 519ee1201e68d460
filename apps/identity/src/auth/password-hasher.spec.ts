import { PasswordHasher } from './password-hasher';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher();

  it('hashes with argon2id at the OWASP minimum (19 MiB, t=2, p=1), salted', async () => {
    const a = await hasher.hash('correct horse');
    const b = await hasher.hash('correct horse');
    expect(a).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(a).not.toBe(b);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const hashed = await hasher.hash('correct horse');
    expect(await hasher.verify(hashed, 'correct horse')).toBe(true);
    expect(await hasher.verify(hashed, 'wrong horse')).toBe(false);
  });

  it('answers false, never throws, for an unknown user or a malformed hash', async () => {
    expect(await hasher.verify(undefined, 'anything')).toBe(false);
    expect(await hasher.verify('not-a-hash', 'anything')).toBe(false);
  });
});
