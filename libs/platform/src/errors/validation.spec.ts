import { IsArray, IsObject } from 'class-validator';
import { ArrayField } from '../openapi/fields';
import { AppError } from './app-error';
import { createValidationPipe, findUnstorableText, isUnstorableText, nestsDeeperThan } from './validation';
import { OpaqueJson } from '../openapi/opaque-json';

describe('nestsDeeperThan', () => {
  const arrays = (levels: number): unknown => {
    let v: unknown = [];
    for (let i = 1; i < levels; i++) v = [v];
    return v;
  };
  const objects = (levels: number): unknown => {
    let v: unknown = {};
    for (let i = 1; i < levels; i++) v = { a: v };
    return v;
  };

  it('counts the levels of arrays and objects, mixed', () => {
    expect(nestsDeeperThan(arrays(3), 3)).toBe(false);
    expect(nestsDeeperThan(arrays(4), 3)).toBe(true);
    expect(nestsDeeperThan(objects(4), 3)).toBe(true);
    expect(nestsDeeperThan({ a: [{ b: [] }] }, 4)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: [] }] }, 3)).toBe(true);
  });

  it('finds the one deep branch among shallow ones', () => {
    expect(nestsDeeperThan({ a: 1, b: [1, 2, { c: 'x' }], d: objects(9) }, 9)).toBe(true);
    expect(nestsDeeperThan({ a: 1, b: [1, 2, { c: 'x' }], d: objects(8) }, 9)).toBe(false);
  });

  it('treats scalars and null as no nesting', () => {
    for (const v of [null, undefined, 1, 'x', true]) expect(nestsDeeperThan(v, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
  });

  it('walks a body 100,000 levels deep without a recursion of its own', () => {
    expect(nestsDeeperThan(arrays(100_000), 128)).toBe(true);
  });
});

describe('unstorable text (NUL, lone surrogates)', () => {
  it('tells unstorable strings from any well-formed text', () => {
    expect(isUnstorableText('a\u0000b')).toBe(true);
    expect(isUnstorableText('x\ud800')).toBe(true);
    expect(isUnstorableText('\udc00x')).toBe(true);
    expect(isUnstorableText('emoji \ud83d\ude00, é, 中文, \u0001')).toBe(false);
  });

  it('names the field: values and keys, arrays and objects, the first in document order', () => {
    const body = { name: 'ok', rows: [{ outputs: { a: 'fine' } }, { outputs: { risk: 'bad\u0000' } }] };
    expect(findUnstorableText(body)).toBe('body.rows[1].outputs.risk');
    expect(findUnstorableText({ rows: [{ ['k\ud800']: 1 }] })).toBe('body.rows[0]');
    expect(findUnstorableText({ a: ['x', 'y\udfff'], b: 'z\u0000' })).toBe('body.a[1]');
    expect(findUnstorableText({ a: 'fine', b: [1, null, true] })).toBeNull();
    expect(findUnstorableText('\u0000', 'comment')).toBe('comment');
  });

  it('the validation pipe refuses such a body with 400 INVALID_CHARACTERS naming the field', async () => {
    const pipe = createValidationPipe();
    const error = await pipe
      .transform({ name: 'x', rows: [{ id: 'r\u0000' }] }, { type: 'body', metatype: Object })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      status: 400,
      code: 'INVALID_CHARACTERS',
      details: [{ field: 'body.rows[0].id', message: expect.stringContaining('NUL') }],
    });
    await expect(pipe.transform({ name: 'fine' }, { type: 'body', metatype: Object })).resolves.toEqual({
      name: 'fine',
    });
    const deep = await pipe.transform(deepObject(200), { type: 'body', metatype: Object }).catch((e) => e);
    expect(deep).toMatchObject({ code: 'BODY_TOO_DEEP' });
  });

  it('finds a bad key or string among thousands of objects repeating the same keys (a large batch)', async () => {
    const pipe = createValidationPipe();
    const rows = (last: Record<string, unknown>) => ({
      rows: [...Array.from({ length: 5000 }, (_, i) => ({ id: `r${i}`, n: i })), last],
    });
    const badKey = await pipe
      .transform(rows({ id: 'x', ['n\ud800']: 1 }), { type: 'body', metatype: Object })
      .catch((e: unknown) => e);
    expect(badKey).toMatchObject({ code: 'INVALID_CHARACTERS', details: [{ field: 'body.rows[5000]' }] });
    const badValue = await pipe
      .transform(rows({ id: 'x\u0000', n: 1 }), { type: 'body', metatype: Object })
      .catch((e: unknown) => e);
    expect(badValue).toMatchObject({
      code: 'INVALID_CHARACTERS',
      details: [{ field: 'body.rows[5000].id' }],
    });
    const fine = rows({ id: 'x', n: 1 });
    await expect(pipe.transform(fine, { type: 'body', metatype: Object })).resolves.toEqual(fine);
  });
});

function deepObject(levels: number): unknown {
  let v: unknown = { s: '\u0000' };
  for (let i = 1; i < levels; i++) v = { a: v };
  return v;
}

describe('the validation pipe and user-named keys', () => {
  class BodyDto {
    @IsArray()
    rows!: unknown[];

    @IsObject()
    settings!: Record<string, unknown>;
  }

  it('keeps keys named like Object.prototype members under untyped properties (class-transformer drops them)', async () => {
    const sent = {
      rows: [{ outputs: { constructor: 'a', toString: 'b', hasOwnProperty: 'c', plain: 'd' } }],
      settings: { valueOf: 1 },
    };
    const result = (await createValidationPipe().transform(JSON.parse(JSON.stringify(sent)), {
      type: 'body',
      metatype: BodyDto,
    })) as BodyDto;
    expect(result).toBeInstanceOf(BodyDto);
    expect(result.rows).toEqual(sent.rows);
    expect(Object.keys((result.rows[0] as { outputs: object }).outputs)).toEqual([
      'constructor',
      'toString',
      'hasOwnProperty',
      'plain',
    ]);
    expect(result.settings).toEqual({ valueOf: 1 });
  });

  it('removes prototype-pollution payloads', async () => {
    const sent = JSON.parse(
      '{"rows":[{"constructor":{"prototype":{"polluted":true}},"prototype":{"x":1},"ok":{"constructor":"data"}}],"settings":{}}',
    );
    const result = (await createValidationPipe().transform(sent, {
      type: 'body',
      metatype: BodyDto,
    })) as BodyDto;
    // a body carrying a payload keeps Nest's stripping (every `constructor` key) for the whole property
    expect(result.rows).toEqual([{ ok: {} }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("OpaqueJson('array')", () => {
  class BatchDto {
    @IsArray()
    @OpaqueJson('array')
    items!: unknown[];
  }

  it('hands the array over as sent (the very array, not a copy) and still refuses a non-array', async () => {
    const items = [{ a: 1 }, 'x', null, [2]];
    const result = (await createValidationPipe().transform(
      { items },
      { type: 'body', metatype: BatchDto },
    )) as BatchDto;
    expect(result).toBeInstanceOf(BatchDto);
    expect(result.items).toBe(items);
    const refused = await createValidationPipe()
      .transform({ items: 'x' }, { type: 'body', metatype: BatchDto })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused.status).toBe(400);
  });
});

describe('the validation pipe and open-JSON arrays (ArrayField of objects)', () => {
  class RowsDto {
    @ArrayField('object', { minItems: 2, maxItems: 5 })
    rows!: Record<string, unknown>[];
  }
  const pipe = createValidationPipe();
  const send = (rows: unknown) => pipe.transform({ rows }, { type: 'body', metatype: RowsDto });

  it('hands a valid array over as sent (the same array, not a copy)', async () => {
    const rows = [{ a: 1 }, { b: { c: [1] } }, { d: 'x' }];
    const result = (await send(rows)) as RowsDto;
    expect(result).toBeInstanceOf(RowsDto);
    expect(result.rows).toBe(rows);
  });

  it('still refuses an array past its bounds or holding a non-object, as class-validator words it', async () => {
    for (const rows of [[{ a: 1 }], Array.from({ length: 6 }, () => ({})), [{ a: 1 }, 'text', { b: 2 }], 'x'])
      await expect(send(rows)).rejects.toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
  });
});
