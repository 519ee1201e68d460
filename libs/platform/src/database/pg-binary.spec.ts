import {
  isInt4,
  isoFromPgMicros,
  jsonbString,
  jsonbStrings,
  PG_ARRAY_HEADER_BYTES,
  pgMicros,
  PgOid,
  PgRecordWriter,
  readPgMicros,
  readUuid,
  storableText,
  writePgArrayHeader,
  writePgMicros,
  writeUuid,
} from './pg-binary';

describe('PostgreSQL binary format', () => {
  it('writes a one-dimensional array header', () => {
    const out = Buffer.alloc(PG_ARRAY_HEADER_BYTES);
    writePgArrayHeader(out, 16_500, 3);
    expect([0, 4, 8, 12, 16].map((at) => out.readInt32BE(at))).toEqual([1, 0, 16_500, 3, 1]);
  });

  it('round-trips uuids and refuses anything else', () => {
    const out = Buffer.alloc(16);
    writeUuid(out, 0, '019AB5A2-1c2d-7abc-8def-0123456789ab');
    expect(readUuid(out, 0)).toBe('019ab5a2-1c2d-7abc-8def-0123456789ab');
    expect(() => writeUuid(out, 0, '019ab5a2-1c2d-7abc-8def-0123456789zz')).toThrow(TypeError);
    expect(() => writeUuid(out, 0, 'not-a-uuid')).toThrow(TypeError);
  });

  it('keeps microseconds of an instant and refuses what is not one', () => {
    const micros = pgMicros('2026-01-02T03:04:05.123456Z');
    const out = Buffer.alloc(8);
    writePgMicros(out, 0, micros);
    expect(isoFromPgMicros(readPgMicros(out, 0))).toBe('2026-01-02T03:04:05.123456Z');
    expect(isoFromPgMicros(pgMicros('1999-12-31T23:59:59.000Z'))).toBe('1999-12-31T23:59:59.000Z');
    expect(() => pgMicros('yesterday')).toThrow(TypeError);
  });

  it('writes record fields: text, NULL, jsonb, text[] and fixed values', () => {
    const w = new PgRecordWriter();
    w.out = Buffer.alloc(128);
    w.at = 0;
    w.text('é');
    w.nullField(PgOid.text);
    w.jsonb('[]');
    w.textArray(['a\u0000']);
    w.out.writeInt32BE(7, w.fixed(PgOid.int4, 4));
    const b = w.out;
    expect([b.readUInt32BE(0), b.readInt32BE(4), b.toString('utf8', 8, 10)]).toEqual([PgOid.text, 2, 'é']);
    expect([b.readUInt32BE(10), b.readInt32BE(14)]).toEqual([PgOid.text, -1]);
    expect([b.readUInt32BE(18), b.readInt32BE(22), b[26], b.toString('utf8', 27, 29)]).toEqual([
      PgOid.jsonb,
      3,
      1,
      '[]',
    ]);
    expect(b.readUInt32BE(29)).toBe(PgOid.textArray);
    const element = b.toString('utf8', 29 + 8 + 20 + 4, 29 + 8 + 20 + 4 + 4);
    expect(element).toBe('a\ufffd');
    expect(b.readInt32BE(w.at - 4)).toBe(7);
  });

  it('makes text and JSON acceptable to PostgreSQL', () => {
    expect(storableText('a\u0000b')).toBe('a\ufffdb');
    expect(jsonbString('plain')).toBe('"plain"');
    expect(jsonbString('nul \u0000 and lone \ud800')).toBe('"nul \\ufffd and lone \\ufffd"');
    expect(jsonbStrings([])).toBe('[]');
    expect(jsonbStrings(['a', 'b"'])).toBe('["a","b\\""]');
    expect([isInt4(2_147_483_647), isInt4(2_147_483_648), isInt4(1.5)]).toEqual([true, false, false]);
  });
});
