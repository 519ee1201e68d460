import {
  decodeSpilledEntry,
  EncodedAuditEntry,
  encodeAuditEntry,
  executionIdOf,
  auditRowArray,
} from './audit-row';
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

const plain = (entry: EncodedAuditEntry | undefined) => entry && { tenantId: entry.tenantId, row: entry.row };

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

  it('refuses a version that is not a 4-byte integer (the column is an int)', () => {
    for (const version of [Number.NaN, 1.5, 2 ** 31]) {
      expect(() => encodeAuditEntry(record({ version }))).toThrow(/Not a version number/);
    }
    expect(JSON.parse(encodeAuditEntry(record({ version: -7 })).row).v).toBe(-7);
  });
});

describe('encodeAuditEntry: values as the columns take them', () => {
  it('keeps the instant to the microsecond, and writes one given with an offset in UTC', () => {
    const at = (executedAt: string) => JSON.parse(encodeAuditEntry(record({ executedAt })).row).t;
    expect(at('2026-11-24T17:32:48.060Z')).toBe('2026-11-24T17:32:48.060Z');
    expect(at('2026-11-24T17:32:48.060123Z')).toBe('2026-11-24T17:32:48.060123Z');
    expect(at('2026-11-24T17:32:48.0601239Z')).toBe('2026-11-24T17:32:48.060123Z');
    expect(at('2026-11-24T19:32:48+02:00')).toBe('2026-11-24T17:32:48.000Z');
    expect(at('1999-12-31T23:59:59.999999Z')).toBe('1999-12-31T23:59:59.999999Z');
  });

  it('replaces U+0000, which PostgreSQL text cannot hold, in every text value', () => {
    const row = JSON.parse(
      encodeAuditEntry(
        record({
          workflowName: 'w\u0000',
          correlationId: '\u0000c',
          errorCodes: ['E\u0000'],
          rulesMatched: ['n\u0000'],
        }),
      ).row,
    );
    expect([row.w, row.c, row.e, row.m]).toEqual(['w\ufffd', '\ufffdc', ['E\ufffd'], ['n\ufffd']]);
  });

  it('refuses an execution id that is not a UUID, and an instant that is not ISO-8601', () => {
    expect(() => encodeAuditEntry(record({ executionId: '019ab5a2-1c2d-7abc-8def-0123456789ax' }))).toThrow(
      /Not a UUID/,
    );
    expect(() => encodeAuditEntry(record({ executionId: 'not-a-uuid' }))).toThrow(/Not a UUID/);
    expect(() => encodeAuditEntry(record({ executedAt: 'yesterday' }))).toThrow(/Not an instant/);
    // Date.parse reads these, PostgreSQL would read them otherwise or not at all: refused
    expect(() => encodeAuditEntry(record({ executedAt: 'Nov 24 2026 10:00' }))).toThrow(/Not an instant/);
    expect(() => encodeAuditEntry(record({ executedAt: '2026-11-24' }))).toThrow(/Not an instant/);
    expect(() => encodeAuditEntry(record({ executedAt: 1_732_060_000_000 as never }))).toThrow(
      /Not an instant/,
    );
    expect(() => encodeAuditEntry(record({ executionId: undefined as never }))).toThrow(TypeError);
  });

  it('reads the execution id back from its 16 bytes', () => {
    const entry = encodeAuditEntry(record({ executionId: '019AB5A2-1C2D-7ABC-8DEF-0123456789AB' }));
    expect(executionIdOf(entry)).toBe('019ab5a2-1c2d-7abc-8def-0123456789ab');
  });
});

describe('decodeSpilledEntry: spill lines of both formats', () => {
  it('reads an encoded row as it is', () => {
    const entry = encodeAuditEntry(record());
    expect(plain(decodeSpilledEntry(entry.row))).toEqual(plain(entry));
    expect(executionIdOf(entry)).toBe('019ab5a2-1c2d-7abc-8def-0123456789ab');
  });

  it('reads a whole record (the format before rows were encoded when recorded)', () => {
    expect(plain(decodeSpilledEntry(JSON.stringify(record())))).toEqual(plain(encodeAuditEntry(record())));
  });

  it('refuses a line that is neither', () => {
    expect(decodeSpilledEntry('{"hello":"world"}')).toBeUndefined();
    expect(decodeSpilledEntry('null')).toBeUndefined();
  });
});

/** The bytes of an entry as a batch carries them (the array's body after its 20-byte header). */
const OID = 16_384;
const bytesOf = (entries: EncodedAuditEntry[]) => auditRowArray(entries, OID).subarray(20);

describe('EncodedAuditEntry: entries kept as binary records outside the heap', () => {
  it('gives back every entry as it was stored, across slabs, with text of other scripts and entries larger than a slab', () => {
    const records: ExecutionRecord[] = [];
    const entries: EncodedAuditEntry[] = [];
    for (let i = 0; i < 3000; i++) {
      const text = i % 997 === 0 ? 'x'.repeat(300_000) : `row ${i} é 名 😀 ${'y'.repeat(i % 300)}`;
      const r = record({ tenantId: i % 2 ? 'acme' : 'globex', workflowName: text, correlationId: `id-${i}` });
      records.push(r);
      entries.push(encodeAuditEntry(r));
    }
    expect(entries.map((e) => JSON.parse(e.row).w)).toEqual(records.map((r) => r.workflowName));
    expect(entries.map((e) => JSON.parse(e.row).c)).toEqual(records.map((r) => r.correlationId));
    expect(entries[1].tenantId).toBe('acme');
  });
});

describe('EncodedAuditEntry: slabs reused once every entry in them is released', () => {
  const row = (i: number) => record({ correlationId: `id-${i}`, workflowName: 'p'.repeat(200) });
  /** Enough entries to fill several 256 KB slabs. */
  const storeMany = (from: number, count: number) =>
    Array.from({ length: count }, (_, k) => encodeAuditEntry(row(from + k)));
  const correlationOf = (entry: EncodedAuditEntry) => JSON.parse(entry.row).c;

  it('reuses a released slab: its old entries can no longer be read (an error, never other rows)', () => {
    const first = storeMany(0, 4000);
    for (const entry of first) entry.release();
    const second = storeMany(4000, 4000);
    expect(second.map(correlationOf)).toEqual(second.map((_, k) => `id-${4000 + k}`));
    let unreadable = 0;
    first.forEach((entry, k) => {
      let text: string;
      try {
        text = correlationOf(entry);
      } catch (error) {
        expect((error as Error).message).toMatch(/released and its slab reused/);
        unreadable++;
        return;
      }
      expect(text).toBe(`id-${k}`); // a slab not reused yet still holds the entry
    });
    expect(unreadable).toBeGreaterThan(0);
  });

  it('keeps a slab while one entry in it is not released, and releasing twice changes nothing', () => {
    const first = storeMany(10_000, 4000);
    const kept = first[1500];
    for (const entry of first) if (entry !== kept) entry.release();
    first[0].release();
    const later = storeMany(20_000, 8000);
    expect(correlationOf(kept)).toBe('id-11500');
    expect(correlationOf(later[7999])).toBe('id-27999');
    expect(bytesOf([kept, later[0], later[1]])).toEqual(
      Buffer.concat([bytesOf([kept]), bytesOf([later[0]]), bytesOf([later[1]])]),
    );
  });
});

describe('auditRowArray: a batch as one binary array of execution_audit_row', () => {
  it('writes the array header: one dimension, no NULL, the row type, the count, lower bound 1', () => {
    const entries = [record(), record({ correlationId: 'other' })].map(encodeAuditEntry);
    const parameter = auditRowArray(entries, OID);
    expect([0, 4, 8, 12, 16].map((at) => parameter.readInt32BE(at))).toEqual([1, 0, OID, 2, 1]);
  });

  it('carries each entry as a length word and a 14-field record, entries one after another', () => {
    const entries = [
      record(),
      record({
        errorCodes: ['E1', 'É2'],
        shadowDiff: { candidateVersion: 4, severity: 'high', differences: [] },
      }),
    ].map(encodeAuditEntry);
    const body = bytesOf(entries);
    let at = 0;
    for (const entry of entries) {
      const length = body.readInt32BE(at);
      expect(length + 4).toBe(entry.byteLength);
      expect(body.readInt32BE(at + 4)).toBe(14);
      expect(body.readUInt32BE(at + 8)).toBe(2950); // uuid first
      at += 4 + length;
    }
    expect(at).toBe(body.length);
  });

  it('copies batches of entries stored apart, in the order given', () => {
    const entries = Array.from({ length: 50 }, (_, k) =>
      encodeAuditEntry(record({ correlationId: `c${k}` })),
    );
    const picked = [entries[3], entries[4], entries[40], entries[5], entries[49]];
    expect(bytesOf(picked)).toEqual(Buffer.concat(picked.map((e) => bytesOf([e]))));
  });

  it('writes into the scratch buffer when it is large enough, else into a buffer of its own', () => {
    const entries = [record(), record({ correlationId: 'other' })].map(encodeAuditEntry);
    const scratch = Buffer.alloc(64 * 1024);
    const inScratch = auditRowArray(entries, OID, scratch);
    expect(inScratch.buffer).toBe(scratch.buffer);
    const tooSmall = Buffer.alloc(8);
    const fresh = auditRowArray(entries, OID, tooSmall);
    expect(fresh.buffer).not.toBe(tooSmall.buffer);
    expect(fresh).toEqual(inScratch);
  });

  it('writes an empty batch as an empty array', () => {
    expect(auditRowArray([], OID).length).toBe(20);
    expect(auditRowArray([], OID).readInt32BE(12)).toBe(0);
  });
});
