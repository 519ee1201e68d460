import { createHash, randomBytes } from 'node:crypto';

/**
 * License keys: `ARB-` + four groups of five Crockford base32 characters (100 random bits) + `-` + a
 * two-character check code (10 bits of SHA-256 over the groups). A mistyped key (one wrong, missing or
 * swapped character) is caught before any network call with probability 1023/1024; `O`/`I`/`L` are read
 * as `0`/`1`/`1` and case does not matter.
 */
export const LICENSE_KEY_PREFIX = 'ARB';
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const SHAPE = /^ARB-([0-9A-Z]{5})-([0-9A-Z]{5})-([0-9A-Z]{5})-([0-9A-Z]{5})-([0-9A-Z]{2})$/;

function checkCode(body: string): string {
  const digest = createHash('sha256').update(`arbiter-license:${body}`).digest();
  const bits = ((digest[0] << 2) | (digest[1] >> 6)) & 0x3ff;
  return ALPHABET[bits >> 5] + ALPHABET[bits & 31];
}

/** A new license key from 13 random bytes (or the given ones: tests). */
export function generateLicenseKey(random: Uint8Array = randomBytes(13)): string {
  let bits = 0n;
  for (const byte of random.subarray(0, 13)) bits = (bits << 8n) | BigInt(byte);
  let body = '';
  for (let i = 0; i < 20; i++) body += ALPHABET[Number((bits >> BigInt(5 * i)) & 31n)];
  const groups = body.match(/.{5}/g)!;
  return `${LICENSE_KEY_PREFIX}-${groups.join('-')}-${checkCode(groups.join(''))}`;
}

export type LicenseKeyCheck =
  { ok: true; licenseKey: string } | { ok: false; reason: 'FORMAT' | 'CHECK_CODE' };

/** Whether `input` is a well-formed key with the right check code; `licenseKey` is its normal form. */
export function checkLicenseKey(input: unknown): LicenseKeyCheck {
  if (typeof input !== 'string' || input.length > 64) return { ok: false, reason: 'FORMAT' };
  const normal = input.trim().toUpperCase().replace(/O/g, '0').replace(/[IL]/g, '1');
  const match = SHAPE.exec(normal);
  if (!match || /U/.test(normal.slice(4))) return { ok: false, reason: 'FORMAT' };
  const body = match.slice(1, 5).join('');
  if (checkCode(body) !== match[5]) return { ok: false, reason: 'CHECK_CODE' };
  return { ok: true, licenseKey: normal };
}

/** A short, non-secret hint of a key for logs and proofs: prefix, first group and check code. */
export function licenseKeyHint(licenseKey: string): string {
  const parts = licenseKey.split('-');
  return `${parts[0]}-${parts[1]}-…-${parts[parts.length - 1]}`;
}
