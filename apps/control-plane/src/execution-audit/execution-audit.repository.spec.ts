import { decodeSpilledEntry, encodeAuditEntry, executionIdOf } from './execution-audit.repository';
import type { ExecutionRecord } from './execution-record';

const record = (overrides: Partial<ExecutionRecord> = {}): ExecutionRecord => ({
  executionId: '019ab5a2-1c2d-7abc-8def-0123456789ab',
  tenantId: 'acme',
  workflowName: 'loan-offer',
  version: 3,
  correlationId: 'corr-1',
  executedAt: '2026-11-24T17:32:48.060Z',
  executionTimeMs: 0.123,
  rulesMatched: ['adult', 'risk'],
  status: 'success',
  errorCodes: [],
  arm: 'canary',
  rolloutId: 'c0a8f0e2-0000-4000-8000-000000000001',
  mode: 'Rules',
  shadowDiff: null,
  ...overrides,
});

describe('encodeAuditEntry: the row JSON with one-letter keys', () => {
  it('writes every field under its key, as JSON', () => {
    const entry = encodeAuditEntry(record());
    expect(entry.tenantId).toBe('acme');
    expect(JSON.parse(entry.row)).toEqual({
      n: 'acme',
      i: '019ab5a2-1c2d-7abc-8def-0123456789ab',
      w: 'loan-offer',
      v: 3,
      c: 'corr-1',
      t: '2026-11-24T17:32:48.060Z',
      d: 0.123,
      m: ['adult', 'risk'],
      s: 'success',
      a: 'canary',
      r: 'c0a8f0e2-0000-4000-8000-000000000001',
      o: 'Rules',
    });
  });

  it('leaves out what is null or empty (read back as NULL), and writes what is there', () => {
    const bare = JSON.parse(encodeAuditEntry(record({ version: null, rolloutId: null })).row);
    expect(Object.keys(bare)).toEqual(['n', 'i', 'w', 'c', 't', 'd', 'm', 's', 'a', 'o']);
    const full = JSON.parse(
      encodeAuditEntry(
        record({
          status: 'error',
          errorCodes: ['TIMEOUT', 'NODE_FAILED'],
          shadowDiff: { candidateVersion: 4, severity: 'high', differences: [] },
        }),
      ).row,
    );
    expect(full.e).toEqual(['TIMEOUT', 'NODE_FAILED']);
    expect(full.x).toEqual({ candidateVersion: 4, severity: 'high', differences: [] });
  });

  it('escapes what callers chose: quotes, backslashes, control characters, other scripts, surrogate pairs', () => {
    const hostile = 'a"b\\c\n\t\u0001 é 名 😀 ","i":"x';
    const entry = encodeAuditEntry(
      record({ workflowName: hostile, correlationId: hostile, rulesMatched: [hostile] }),
    );
    const row = JSON.parse(entry.row);
    expect(row.w).toBe(hostile);
    expect(row.c).toBe(hostile);
    expect(row.m).toEqual([hostile]);
    expect(row.i).toBe('019ab5a2-1c2d-7abc-8def-0123456789ab');
  });

  it('replaces what jsonb refuses (U+0000, lone surrogates) with U+FFFD, and only that', () => {
    const row = JSON.parse(
      encodeAuditEntry(
        record({
          correlationId: 'a\u0000b',
          workflowName: 'w\\u0000 \\ud800',
          rulesMatched: ['high \ud800', 'low \udfff', 'pair 😀'],
          shadowDiff: {
            candidateVersion: 2,
            severity: 'high',
            differences: [{ field: 'name', active: '\udc01x' }],
          } as unknown as ExecutionRecord['shadowDiff'],
        }),
      ).row,
    );
    expect(row.c).toBe('a\ufffdb');
    expect(row.w).toBe('w\\u0000 \\ud800'); // literal backslashes, not escapes
    expect(row.m).toEqual(['high \ufffd', 'low \ufffd', 'pair 😀']);
    expect(row.x.differences[0].active).toBe('\ufffdx');
  });
});

describe('encodeAuditEntry: strings written as they are, or escaped', () => {
  /** Random strings over an alphabet of what JSON escapes and what it writes as it is. */
  const ALPHABET = [
    'a',
    'Z',
    '0',
    '-',
    ' ',
    '"',
    '\\',
    '/',
    '\n',
    '\u0001',
    '\u001f',
    '\u007f',
    'é',
    '名',
    '😀',
    '\u2028',
  ];
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const randomString = () =>
    Array.from(
      { length: Math.floor(random() * 12) },
      () => ALPHABET[Math.floor(random() * ALPHABET.length)],
    ).join('');

  it('reads back every string as it was (1,000 random strings in every string field)', () => {
    for (let i = 0; i < 1000; i++) {
      const [w, c, m1, m2, e1] = [
        randomString(),
        randomString(),
        randomString(),
        randomString(),
        randomString(),
      ];
      const row = JSON.parse(
        encodeAuditEntry(
          record({ workflowName: w, correlationId: c, rulesMatched: [m1, m2], errorCodes: [e1] }),
        ).row,
      );
      expect([row.w, row.c, row.m, row.e]).toEqual([w, c, [m1, m2], [e1]]);
    }
  });

  it('writes what JSON.stringify writes for the same fields', () => {
    const r = record({ workflowName: 'wf "quoted" \\ 名', rulesMatched: ['a', 'b\tc'], errorCodes: ['X'] });
    const row = JSON.parse(encodeAuditEntry(r).row);
    const reference = JSON.parse(
      JSON.stringify({ w: r.workflowName, m: r.rulesMatched, e: r.errorCodes, d: r.executionTimeMs }),
    );
    expect({ w: row.w, m: row.m, e: row.e, d: row.d }).toEqual(reference);
  });

  it('writes a number that is not finite as null (the row stays JSON)', () => {
    const row = JSON.parse(encodeAuditEntry(record({ version: Number.NaN })).row);
    expect(row.v).toBeNull();
  });
});

describe('decodeSpilledEntry: spill lines of both formats', () => {
  it('reads an encoded row as it is', () => {
    const entry = encodeAuditEntry(record());
    expect(decodeSpilledEntry(entry.row)).toEqual(entry);
    expect(executionIdOf(entry)).toBe('019ab5a2-1c2d-7abc-8def-0123456789ab');
  });

  it('reads a whole record (the format before rows were encoded when recorded)', () => {
    expect(decodeSpilledEntry(JSON.stringify(record()))).toEqual(encodeAuditEntry(record()));
  });

  it('refuses a line that is neither', () => {
    expect(decodeSpilledEntry('{"hello":"world"}')).toBeUndefined();
    expect(decodeSpilledEntry('null')).toBeUndefined();
  });
});
