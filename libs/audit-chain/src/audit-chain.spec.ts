import { generateKeyPairSync } from 'node:crypto';
import {
  AuditContent,
  GENESIS_HASH,
  SignedAuditEntry,
  signContent,
  signHead,
  verifyChain,
} from './audit-chain';
import { canonicalJson } from './canonical-json';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

function chainOf(count: number, tenantId = 'acme'): SignedAuditEntry[] {
  const entries: SignedAuditEntry[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq++) {
    const content: AuditContent = {
      tenantId,
      seq,
      workflowName: 'loans',
      timestamp: new Date(Date.UTC(2026, 0, seq)).toISOString(),
      actor: 'alice',
      action: 'SAVE',
      version: seq,
      detail: null,
      status: 'success',
      prevHash,
      keyId: 'k1',
    };
    const entry = signContent(content, privateKey);
    entries.push(entry);
    prevHash = entry.hash;
  }
  return entries;
}

const headOf = (entries: SignedAuditEntry[], tenantId = 'acme') =>
  signHead(
    {
      tenantId,
      seq: entries.length,
      hash: entries.length ? entries[entries.length - 1].hash : GENESIS_HASH,
      signedAt: '2026-01-31T00:00:00.000Z',
      keyId: 'k1',
    },
    privateKey,
  );

describe('verifyChain', () => {
  it('accepts an intact chain that ends at its head', () => {
    const entries = chainOf(3);
    const result = verifyChain('acme', entries, { k1: publicKey }, headOf(entries));
    expect(result).toEqual({
      valid: true,
      tenantId: 'acme',
      entriesChecked: 3,
      firstBadEntry: null,
      reason: null,
      headSeq: 3,
    });
  });

  it('names an edited entry', () => {
    const entries = chainOf(3);
    entries[1] = { ...entries[1], detail: 'edited' };
    const result = verifyChain('acme', entries, { k1: publicKey });
    expect(result).toMatchObject({ valid: false, firstBadEntry: { seq: 2 }, entriesChecked: 1 });
    expect(result.reason).toMatch(/entry edited/);
  });

  it('detects deleted newest entries through the head', () => {
    const entries = chainOf(3);
    const result = verifyChain('acme', entries.slice(0, 2), { k1: publicKey }, headOf(entries));
    expect(result).toMatchObject({ valid: false, firstBadEntry: { seq: 3 } });
  });

  it('detects a rewound head: the attacker cannot re-sign it', () => {
    const entries = chainOf(3);
    const signed = headOf(entries);
    const rewound = { ...signed, seq: 2, hash: entries[1].hash };
    const result = verifyChain('acme', entries.slice(0, 2), { k1: publicKey }, rewound);
    expect(result).toMatchObject({ valid: false, firstBadEntry: { seq: 2 } });
    expect(result.reason).toMatch(/chain head signature invalid/);
    // an entry's signature is not a head signature (the signed texts differ)
    const borrowed = { ...rewound, signature: entries[1].signature };
    expect(verifyChain('acme', entries.slice(0, 2), { k1: publicKey }, borrowed).reason).toMatch(
      /chain head signature invalid/,
    );
  });

  it('refuses a missing or unsigned head unless told the store has none', () => {
    const entries = chainOf(2);
    expect(verifyChain('acme', entries, { k1: publicKey }).reason).toMatch(/signed chain head is missing/);
    const unsigned = { seq: 2, hash: entries[1].hash };
    expect(verifyChain('acme', entries, { k1: publicKey }, unsigned).reason).toMatch(/not signed/);
    expect(
      verifyChain('acme', entries, { k1: publicKey }, unsigned, { requireSignedHead: false }).valid,
    ).toBe(true);
    expect(verifyChain('acme', [], { k1: publicKey }, null).valid).toBe(true);
  });

  it("refuses another tenant's head", () => {
    const entries = chainOf(2);
    const other = signHead({ ...headOf(entries), tenantId: 'beta' }, privateKey);
    expect(verifyChain('acme', entries, { k1: publicKey }, other).reason).toMatch(/tenant 'beta'/);
  });

  it('detects a rollback to an earlier signed head through a head seen before', () => {
    const entries = chainOf(3);
    const earlier = headOf(entries.slice(0, 2));
    expect(verifyChain('acme', entries.slice(0, 2), { k1: publicKey }, earlier).valid).toBe(true);
    const result = verifyChain('acme', entries.slice(0, 2), { k1: publicKey }, earlier, { minHeadSeq: 3 });
    expect(result).toMatchObject({ valid: false, firstBadEntry: { seq: 3 } });
    expect(result.reason).toMatch(/rolled back/);
  });

  it('refuses an entry signed by an unknown key', () => {
    expect(verifyChain('acme', chainOf(1), { other: publicKey }).reason).toMatch(/no public key/);
  });
});

describe('canonicalJson', () => {
  it('sorts keys and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [true, undefined], c: undefined })).toBe('{"a":[true,null],"b":1}');
  });
});
