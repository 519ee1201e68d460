import { generateKeyPairSync } from 'node:crypto';
import { AuditContent, GENESIS_HASH, SignedAuditEntry, signContent, verifyChain } from './audit-chain';
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

describe('verifyChain', () => {
  it('accepts an intact chain that ends at its head', () => {
    const entries = chainOf(3);
    const result = verifyChain('acme', entries, { k1: publicKey }, { seq: 3, hash: entries[2].hash });
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
    const result = verifyChain(
      'acme',
      entries.slice(0, 2),
      { k1: publicKey },
      { seq: 3, hash: entries[2].hash },
    );
    expect(result).toMatchObject({ valid: false, firstBadEntry: { seq: 3 } });
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
