import {
  decodeSpilledEntry,
  EncodedAuditEntry,
  encodeAuditEntry,
  executionIdOf,
  jsonbArray,
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

  it('writes a number that is not finite as null (the row stays JSON)', () => {
    const row = JSON.parse(encodeAuditEntry(record({ version: Number.NaN })).row);
    expect(row.v).toBeNull();
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

describe('EncodedAuditEntry: rows kept as UTF-8 bytes outside the heap', () => {
  it('gives back every row as it was stored, across slabs, with rows of other scripts and rows larger than a slab', () => {
    const rows: string[] = [];
    const entries: EncodedAuditEntry[] = [];
    for (let i = 0; i < 3000; i++) {
      const text = i % 997 === 0 ? 'x'.repeat(300_000) : `row ${i} é 名 😀 ${'y'.repeat(i % 300)}`;
      const row = JSON.stringify({ n: 't', i: String(i), w: text });
      rows.push(row);
      entries.push(EncodedAuditEntry.store(i % 2 ? 'acme' : 'globex', row));
    }
    expect(entries.map((e) => e.row)).toEqual(rows);
    expect(entries.map((e) => e.byteLength)).toEqual(rows.map((r) => Buffer.byteLength(r)));
    expect(entries[1].tenantId).toBe('acme');
  });
});

describe('EncodedAuditEntry: slabs reused once every entry in them is released', () => {
  const row = (i: number) => JSON.stringify({ n: 't', i: `id-${i}`, pad: 'p'.repeat(200) });
  /** Enough rows to fill several 256 KB slabs. */
  const storeMany = (from: number, count: number) =>
    Array.from({ length: count }, (_, k) => EncodedAuditEntry.store('acme', row(from + k)));

  it('reuses a released slab: its old entries can no longer be read (an error, never other rows)', () => {
    const first = storeMany(0, 4000);
    for (const entry of first) entry.release();
    const second = storeMany(4000, 4000);
    expect(second.map((e) => e.row)).toEqual(second.map((_, k) => row(4000 + k)));
    let unreadable = 0;
    first.forEach((entry, k) => {
      let text: string;
      try {
        text = entry.row;
      } catch (error) {
        expect((error as Error).message).toMatch(/released and its slab reused/);
        unreadable++;
        return;
      }
      expect(text).toBe(row(k)); // a slab not reused yet still holds the row
    });
    expect(unreadable).toBeGreaterThan(0);
  });

  it('keeps a slab while one entry in it is not released, and releasing twice changes nothing', () => {
    const first = storeMany(10_000, 4000);
    const kept = first[1500];
    for (const entry of first) if (entry !== kept) entry.release();
    first[0].release();
    const later = storeMany(20_000, 8000);
    expect(kept.row).toBe(row(11_500));
    expect(later[7999].row).toBe(row(27_999));
    const batch = jsonbArray([kept, later[0], later[1]]).subarray(1).toString('utf8');
    expect(JSON.parse(batch).map((r: { i: string }) => r.i)).toEqual(['id-11500', 'id-20000', 'id-20001']);
  });
});

describe('jsonbArray: a batch as one binary jsonb parameter', () => {
  it('is the version byte, then the rows as a JSON array', () => {
    const entries = [record(), record({ workflowName: 'wf 名 "q"' }), record({ errorCodes: ['E'] })].map(
      encodeAuditEntry,
    );
    const parameter = jsonbArray(entries);
    expect(parameter[0]).toBe(1);
    const text = parameter.subarray(1).toString('utf8');
    expect(JSON.parse(text)).toEqual(entries.map((e) => JSON.parse(e.row)));
    expect(parameter.length).toBe(1 + Buffer.byteLength(text));
  });

  it('holds the rows in the order given, whether they lie together, apart, reversed or in several slabs', () => {
    const entries = Array.from({ length: 2500 }, (_, i) =>
      encodeAuditEntry(
        record({ tenantId: i % 3 ? 'acme' : 'globex', correlationId: `c-${i}-${'z'.repeat(i % 200)}` }),
      ),
    );
    const acme = entries.filter((e) => e.tenantId === 'acme');
    for (const batch of [
      entries,
      acme,
      [...acme].reverse(),
      entries.slice(700, 1900),
      [entries[5], entries[5]],
    ]) {
      const text = jsonbArray(batch).subarray(1).toString('utf8');
      expect(JSON.parse(text)).toEqual(batch.map((e) => JSON.parse(e.row)));
    }
  });

  it('writes into the buffer it is given when the batch fits, else into a new one', () => {
    const entries = [record(), record({ correlationId: 'other' })].map(encodeAuditEntry);
    const scratch = Buffer.alloc(64 * 1024);
    const inScratch = jsonbArray(entries, scratch);
    expect(inScratch.buffer).toBe(scratch.buffer);
    const tooSmall = Buffer.alloc(10);
    const fresh = jsonbArray(entries, tooSmall);
    expect(fresh.buffer).not.toBe(tooSmall.buffer);
    expect(fresh.equals(inScratch)).toBe(true);
  });

  it('is an empty array for no rows, and a single row without a separator', () => {
    expect(jsonbArray([]).subarray(1).toString()).toBe('[]');
    const one = encodeAuditEntry(record());
    expect(jsonbArray([one]).subarray(1).toString()).toBe(`[${one.row}]`);
  });
});
