import {
  parseJsonRequestBodySliced,
  parseJsonRequestBytesSliced,
  parseStoredJsonSliced,
  requestJson,
  sameJsonText,
  SLICED_BODY_CHARS,
  stringifyJsonBytesSliced,
  stringifyJsonSliced,
} from './json-body-sliced';
import { InvalidJsonBodyError } from './json-body';

/** a body past the sliced size: `value` padded with a long filler array (split and batched) */
const large = (value: unknown) => ({
  value,
  filler: Array.from({ length: 40_000 }, (_, i) => ({ i, s: `x${i}` })),
});

describe('parseJsonRequestBodySliced', () => {
  it('gives what JSON.parse gives, for documents split along arrays and objects', async () => {
    const docs = [
      large({ a: [1, 2, { b: 'c\\"d', e: null }], f: true, g: -1.5e3, h: '' }),
      {
        rows: Array.from({ length: 30_000 }, (_, i) => ({
          id: `r${i}`,
          c: { x: '"NL"', y: `[${i}..${i + 1}]` },
          o: [i],
        })),
      },
      Array.from({ length: 20_000 }, (_, i) => [i, `s${i}`, { n: { m: [i, [], {}] } }]),
      {
        ruleSet: {
          rules: Array.from({ length: 20_000 }, (_, i) => ({ id: `r${i}`, condition: `amount > ${i}` })),
        },
      },
      large({ big: 'y'.repeat(SLICED_BODY_CHARS * 2), escaped: 'a\\\\"b\\u00e9\n' }),
    ];
    for (const doc of docs) {
      for (const text of [JSON.stringify(doc), JSON.stringify(doc, null, 2)]) {
        expect(text.length).toBeGreaterThanOrEqual(SLICED_BODY_CHARS);
        expect(JSON.stringify(await parseJsonRequestBodySliced(text))).toBe(JSON.stringify(JSON.parse(text)));
      }
    }
  });

  it('hands the event loop back while parsing a large body', async () => {
    const text = JSON.stringify({ rows: Array.from({ length: 200_000 }, (_, i) => ({ id: `r${i}`, v: i })) });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    await parseJsonRequestBodySliced(text);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(1);
  });

  it('refuses what the one-go parse refuses', async () => {
    const pad = `"pad": [${Array.from({ length: 40_000 }, (_, i) => i).join(',')}]`;
    const bad = [
      `{${pad}, "a": [1,]}`,
      `{${pad}, "a": [1 2]}`,
      `{${pad}, "a": }`,
      `{${pad}, "a": [1, 2}`,
      `{${pad}} trailing`,
      `{${pad}, "a": "unterminated}`,
      `[${pad}]`,
      `{${pad},}`,
    ];
    for (const text of bad)
      await expect(parseJsonRequestBodySliced(text)).rejects.toBeInstanceOf(InvalidJsonBodyError);
  });

  it('refuses prototype poisoning in a piece and in a split member (FORBIDDEN_JSON_KEY)', async () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => ({ i }));
    const inPiece = JSON.stringify({ rows: [...rows, { __proto__: 1 }] }).replace(
      '"i":39999',
      '"__proto__":{"x":1}',
    );
    const split = `{"__proto__": ${JSON.stringify(rows)}}`;
    const ctor = `{"constructor": {"prototype": {"x": 1}, "rows": ${JSON.stringify(rows)}}}`;
    for (const text of [inPiece, split, ctor])
      await expect(parseJsonRequestBodySliced(text)).rejects.toMatchObject({ code: 'FORBIDDEN_JSON_KEY' });
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });
});

describe('parseJsonRequestBytesSliced (a body as received)', () => {
  const rows = Array.from({ length: 30_000 }, (_, i) => ({
    id: `r${i}`,
    c: { país: `"é€😀${i}"`, y: `[${i}..${i + 1}]`, q: 'a\\"b' },
  }));

  it('gives what decoding the body and parsing it gives, multi-byte characters and a byte order mark included', async () => {
    const texts = [
      JSON.stringify({ rows }),
      JSON.stringify({ rows }, null, 2),
      `\ufeff${JSON.stringify({ name: 'ü', rows })}`,
      JSON.stringify(rows.map((r) => [r.id, r.c])),
    ];
    for (const text of texts) {
      const bytes = Buffer.from(text);
      expect(bytes.length).toBeGreaterThanOrEqual(SLICED_BODY_CHARS);
      expect(await parseJsonRequestBytesSliced(bytes)).toEqual(await parseJsonRequestBodySliced(text));
    }
    // bytes that are no UTF-8 decode as the whole body's decoding would (U+FFFD), wherever they stand
    const text = JSON.stringify({ rows, tail: 'XX' });
    const bytes = Buffer.from(text);
    const at = bytes.lastIndexOf('XX');
    bytes[at] = 0xc3; // a lead byte without its continuation
    bytes[at + 1] = 0xff;
    expect(await parseJsonRequestBytesSliced(bytes)).toEqual(
      await parseJsonRequestBodySliced(bytes.toString('utf8')),
    );
    // a small body parses in one go
    expect(await parseJsonRequestBytesSliced(Buffer.from('{"a":"é"}'))).toEqual({ a: 'é' });
  });

  it('refuses what the text parse refuses', async () => {
    const pad = `"pad": [${JSON.stringify(rows)}]`;
    const bad = [
      `{${pad}, "a": [1,]}`,
      `{${pad}, "a": "unterminated}`,
      `{${pad}} trailing`,
      `{${pad},}`,
      `{${pad}, "é": }`,
    ];
    for (const text of bad)
      await expect(parseJsonRequestBytesSliced(Buffer.from(text))).rejects.toBeInstanceOf(
        InvalidJsonBodyError,
      );
    const poisoned = `{"__proto__": ${JSON.stringify(rows)}}`;
    await expect(parseJsonRequestBytesSliced(Buffer.from(poisoned))).rejects.toMatchObject({
      code: 'FORBIDDEN_JSON_KEY',
    });
  });
});

describe('parseStoredJsonSliced (JSON the service wrote itself)', () => {
  it('keeps `__proto__` as an own key, in a piece and in a split member, and leaves prototypes alone', async () => {
    const rows = Array.from({ length: 40_000 }, (_, i) => ({ i }));
    const inPiece = `{"rows": ${JSON.stringify(rows)}, "outputs": {"__proto__": "found"}}`;
    const split = `{"__proto__": ${JSON.stringify(rows)}, "after": 1}`;
    const small = '{"outputs": {"__proto__": "found"}}';
    for (const text of [inPiece, split, small]) {
      const parsed = (await parseStoredJsonSliced(text)) as Record<string, any>;
      expect(JSON.stringify(parsed)).toBe(JSON.stringify(JSON.parse(text)));
      expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    }
    const fromSplit = (await parseStoredJsonSliced(split)) as Record<string, unknown>;
    expect(Object.hasOwn(fromSplit, '__proto__')).toBe(true);
    expect(Array.isArray(fromSplit['__proto__'])).toBe(true);
    const fromPiece = (await parseStoredJsonSliced(inPiece)) as { outputs: Record<string, unknown> };
    expect(Object.hasOwn(fromPiece.outputs, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).i).toBeUndefined();
  });

  it('still refuses text that is not JSON', async () => {
    await expect(parseStoredJsonSliced('{"a": ')).rejects.toBeInstanceOf(InvalidJsonBodyError);
    const rows = JSON.stringify(Array.from({ length: 40_000 }, (_, i) => i));
    await expect(parseStoredJsonSliced(`{"a": ${rows}, }`)).rejects.toBeInstanceOf(InvalidJsonBodyError);
  });
});

describe('stringifyJsonSliced', () => {
  it('writes what JSON.stringify writes', async () => {
    const docs: unknown[] = [
      {
        name: 't',
        description: undefined,
        rows: Array.from({ length: 3_000 }, (_, i) => ({ id: `r${i}`, o: { v: i, s: 'a"b' } })),
      },
      Array.from({ length: 1_000 }, (_, i) => [i, null, true]),
      { a: { b: Array.from({ length: 600 }, (_, i) => i) }, c: [], d: {}, e: 'x', f: null },
      'text',
      42,
      [],
    ];
    for (const doc of docs) expect(await stringifyJsonSliced(doc)).toBe(JSON.stringify(doc));
  });

  it('writes the same text as UTF-8 bytes after a prefix (stringifyJsonBytesSliced)', async () => {
    const doc = {
      name: 'é€😀',
      rows: Array.from({ length: 3_000 }, (_, i) => ({ id: `r${i}`, o: { país: `ü${i}`, s: 'a"b' } })),
    };
    const bytes = await stringifyJsonBytesSliced(doc, [1]);
    expect(bytes.equals(Buffer.concat([Buffer.from([1]), Buffer.from(JSON.stringify(doc))]))).toBe(true);
    expect((await stringifyJsonBytesSliced([1, 'x'])).toString()).toBe('[1,"x"]');
  });
});

describe('requestJson', () => {
  it("keeps a large body's text for its parsed value, and for a DTO that stands for the same JSON", async () => {
    const body = {
      name: 't',
      inputColumns: [{ name: 'age', type: 'number' }],
      rows: Array.from({ length: 20_000 }, (_, i) => ({ id: `r${i}`, c: { age: `> ${i}` } })),
    };
    const text = JSON.stringify(body);
    const parsed = (await parseJsonRequestBodySliced(text)) as typeof body;
    expect(requestJson(parsed)).toBe(text);
    // a small body keeps none, nor does a copy
    expect(requestJson(await parseJsonRequestBodySliced('{"a":1}'))).toBeUndefined();
    expect(requestJson({ ...parsed })).toBeUndefined();
    // the bytes the text came from, when given, until they move to another thread
    const bytes = Buffer.from(text);
    const fromBytes = await parseJsonRequestBodySliced(text, bytes);
    expect(requestJson(fromBytes)).toBe(bytes);
    structuredClone(bytes.buffer, { transfer: [bytes.buffer] });
    expect(requestJson(fromBytes)).toBeUndefined();

    class Column {
      name = '';
      type?: string = undefined;
    }
    const dto = (columns: unknown[], extra: Record<string, unknown> = {}) => ({
      name: parsed.name,
      description: undefined,
      inputColumns: columns,
      rows: parsed.rows,
      ...extra,
    });
    const rebuilt = parsed.inputColumns.map((c) => Object.assign(new Column(), c));
    const same = dto(rebuilt);
    sameJsonText(parsed, same);
    expect(requestJson(same)).toBe(text);
    // a DTO that differs keeps none: another column, a property more or less, other rows
    for (const other of [
      dto([{ name: 'age', type: 'string' }]),
      dto(rebuilt, { comment: 'x' }),
      { name: parsed.name, rows: parsed.rows },
      dto(rebuilt, { rows: [...parsed.rows] }),
    ]) {
      sameJsonText(parsed, other);
      expect(requestJson(other)).toBeUndefined();
    }
  });
});
