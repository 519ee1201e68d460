import { countLeafFields, countOutputFields, deepEqual, diffOutputs } from './index';

describe('diffOutputs: none', () => {
  it.each([
    [{}, {}],
    [
      { a: 1, b: 'x', c: true, d: null },
      { d: null, c: true, b: 'x', a: 1 },
    ],
    [{ a: { b: { c: [1, { d: 2 }] } } }, { a: { b: { c: [1, { d: 2 }] } } }],
    [{ a: 0 }, { a: -0 }],
    [{ a: 1, u: undefined }, { a: 1 }],
    [{ e: {} }, { e: {} }],
  ])('%j equals %j', (active, candidate) => {
    expect(diffOutputs(active, candidate)).toEqual({ severity: 'none', differences: [] });
  });
});

describe('diffOutputs: numbers (rule 4 and 5)', () => {
  it('is medium within 5 % of the active value', () => {
    expect(diffOutputs({ price: 100 }, { price: 105 })).toEqual({
      severity: 'medium',
      differences: [{ field: 'price', activeValue: 100, candidateValue: 105, severity: 'medium' }],
    });
    expect(diffOutputs({ price: 100 }, { price: 95 }).severity).toBe('medium');
    expect(diffOutputs({ price: -200 }, { price: -190 }).severity).toBe('medium');
  });

  it('beyond 5 % is medium when the field counts match (rule 5)', () => {
    expect(diffOutputs({ price: 100 }, { price: 106 }).differences[0].severity).toBe('medium');
  });

  it('beyond 5 % is high when the field counts differ', () => {
    const d = diffOutputs({ price: 100 }, { price: 106, extra: 1 });
    expect(d.severity).toBe('high');
    expect(d.differences).toEqual([
      { field: 'price', activeValue: 100, candidateValue: 106, severity: 'high' },
      { field: 'extra', activeValue: null, candidateValue: 1, severity: 'high' },
    ]);
  });

  it('within 5 % stays medium even when the field counts differ', () => {
    const d = diffOutputs({ price: 100 }, { price: 101, extra: 1 });
    expect(d.differences[0]).toMatchObject({ field: 'price', severity: 'medium' });
    expect(d.severity).toBe('high'); // because of the added field
  });

  it('an active 0 tolerates no change: 0 → 0.001 is beyond the tolerance', () => {
    expect(diffOutputs({ a: 0, b: 1 }, { a: 0.001 }).differences).toEqual([
      { field: 'a', activeValue: 0, candidateValue: 0.001, severity: 'high' },
      { field: 'b', activeValue: 1, candidateValue: null, severity: 'high' },
    ]);
    expect(diffOutputs({ a: 0 }, { a: 0.001 }).differences[0].severity).toBe('medium'); // counts match
  });

  it('honours numericTolerance', () => {
    expect(diffOutputs({ a: 100 }, { a: 110, b: 1 }, { numericTolerance: 0.1 }).differences[0].severity).toBe(
      'medium',
    );
    expect(
      diffOutputs({ a: 100 }, { a: 110.5, b: 1 }, { numericTolerance: 0.1 }).differences[0].severity,
    ).toBe('high');
    expect(diffOutputs({ a: 100 }, { a: 101, b: 1 }, { numericTolerance: 0 }).differences[0].severity).toBe(
      'high',
    );
    // an invalid tolerance falls back to 5 %
    expect(diffOutputs({ a: 100 }, { a: 104, b: 1 }, { numericTolerance: -1 }).differences[0].severity).toBe(
      'medium',
    );
  });

  it('the 5 % bound is inclusive', () => {
    expect(diffOutputs({ a: 200 }, { a: 210, x: 1 }).differences[0].severity).toBe('medium');
  });
});

describe('diffOutputs: booleans (rule 3)', () => {
  it('is high when a boolean differs', () => {
    expect(diffOutputs({ approved: true }, { approved: false })).toEqual({
      severity: 'high',
      differences: [{ field: 'approved', activeValue: true, candidateValue: false, severity: 'high' }],
    });
  });
  it('is high when a boolean becomes another type or null', () => {
    expect(diffOutputs({ ok: true }, { ok: 'true' }).severity).toBe('high');
    expect(diffOutputs({ ok: null }, { ok: false }).severity).toBe('high');
    expect(diffOutputs({ ok: true }, { ok: null }).severity).toBe('high');
  });
});

describe('diffOutputs: missing and critical fields (rules 1 and 2)', () => {
  it('is high when a field of active is missing in candidate', () => {
    expect(diffOutputs({ a: 1, b: 2 }, { a: 1 })).toEqual({
      severity: 'high',
      differences: [{ field: 'b', activeValue: 2, candidateValue: null, severity: 'high' }],
    });
  });
  it('is high when a field that was null in active is missing in candidate', () => {
    expect(diffOutputs({ a: null }, {}).severity).toBe('high');
  });
  it('is high when a nested object is replaced by a value (its fields are missing)', () => {
    expect(diffOutputs({ p: { a: 1 } }, { p: 5 }).differences).toEqual([
      { field: 'p', activeValue: { a: 1 }, candidateValue: 5, severity: 'high' },
    ]);
  });
  it('a value replaced by an object is rule 5 (field counts)', () => {
    expect(diffOutputs({ p: 5 }, { p: { a: 1 } }).differences[0].severity).toBe('medium');
    expect(diffOutputs({ p: 5 }, { p: { a: 1, b: 2 } }).differences[0].severity).toBe('high');
  });
  it('is high for any difference in a critical field or under it', () => {
    const options = { criticalFields: ['decision', 'pricing'] };
    expect(diffOutputs({ decision: 'approve' }, { decision: 'review' }, options).severity).toBe('high');
    expect(diffOutputs({ pricing: { rate: 100 } }, { pricing: { rate: 101 } }, options).severity).toBe(
      'high',
    );
    expect(diffOutputs({ pricingNote: 'a' }, { pricingNote: 'b' }, options).severity).toBe('medium'); // not under pricing
    expect(diffOutputs({ a: 1 }, { a: 1, decision: 'x' }, options).differences[0]).toMatchObject({
      field: 'decision',
      severity: 'high',
    });
  });
  it('takes dotted critical paths', () => {
    const options = { criticalFields: ['pricing.rate'] };
    expect(
      diffOutputs({ pricing: { rate: 100, fee: 1 } }, { pricing: { rate: 101, fee: 1 } }, options).severity,
    ).toBe('high');
    expect(
      diffOutputs({ pricing: { rate: 100, fee: 1 } }, { pricing: { rate: 100, fee: 1.01 } }, options)
        .severity,
    ).toBe('medium');
  });
});

describe('diffOutputs: other values (rule 5)', () => {
  it('a changed string is medium when the field counts match, high otherwise', () => {
    expect(diffOutputs({ tier: 'gold', n: 1 }, { tier: 'silver', n: 1 }).severity).toBe('medium');
    expect(diffOutputs({ tier: 'gold' }, { tier: 'silver', n: 1 }).differences[0].severity).toBe('high');
  });
  it('a type change (number to string) is rule 5', () => {
    expect(diffOutputs({ a: 1 }, { a: '1' }).differences[0].severity).toBe('medium');
  });
  it('an added field is high (the counts differ)', () => {
    expect(diffOutputs({}, { a: 1 })).toEqual({
      severity: 'high',
      differences: [{ field: 'a', activeValue: null, candidateValue: 1, severity: 'high' }],
    });
  });
  it('a renamed field: the missing one is high, the added one medium (the counts match)', () => {
    const d = diffOutputs({ a: 1 }, { b: 1 });
    expect(d.differences.map((x) => [x.field, x.severity])).toEqual([
      ['a', 'high'],
      ['b', 'medium'],
    ]);
    expect(d.severity).toBe('high');
  });
});

describe('diffOutputs: nested objects and arrays', () => {
  it('names nested fields by dotted paths, active order first then added fields', () => {
    const d = diffOutputs(
      { results: { A: { isSuccess: true, n: 1 }, B: { isSuccess: false } }, x: 's' },
      { results: { A: { isSuccess: true, n: 2 }, B: { isSuccess: true } }, x: 's', y: 1 },
    );
    expect(d.differences.map((x) => x.field)).toEqual(['results.A.n', 'results.B.isSuccess', 'y']);
    expect(d.severity).toBe('high');
  });

  it('compares arrays as whole values at their path', () => {
    expect(diffOutputs({ events: ['10', '20'] }, { events: ['20', '10'] })).toEqual({
      severity: 'medium',
      differences: [
        { field: 'events', activeValue: ['10', '20'], candidateValue: ['20', '10'], severity: 'medium' },
      ],
    });
    expect(diffOutputs({ events: [{ a: 1 }] }, { events: [{ a: 1 }] }).severity).toBe('none');
    expect(diffOutputs({ events: [] }, { events: [1], more: 1 }).severity).toBe('high');
  });

  it('treats an empty object as a leaf', () => {
    expect(diffOutputs({ e: {} }, { e: { a: 1 } }).differences).toEqual([
      { field: 'e', activeValue: {}, candidateValue: { a: 1 }, severity: 'medium' },
    ]);
  });

  it('treats non-object outputs as empty', () => {
    expect(diffOutputs(null as never, { a: 1 }).severity).toBe('high');
    expect(diffOutputs(null as never, undefined as never)).toEqual({ severity: 'none', differences: [] });
  });

  it('compares the legacy outputs of two versions of the Discount workflow', () => {
    const active = {
      successEvent: '10',
      successEvents: ['10'],
      results: { GiveDiscount10: { isSuccess: true }, GiveDiscount20: { isSuccess: false } },
    };
    const candidate = {
      successEvent: '20',
      successEvents: ['20'],
      results: { GiveDiscount10: { isSuccess: false }, GiveDiscount20: { isSuccess: true } },
    };
    const d = diffOutputs(active, candidate, { criticalFields: ['successEvent'] });
    expect(d.differences.map((x) => [x.field, x.severity])).toEqual([
      ['successEvent', 'high'],
      ['successEvents', 'medium'],
      ['results.GiveDiscount10.isSuccess', 'high'],
      ['results.GiveDiscount20.isSuccess', 'high'],
    ]);
  });
});

describe('shadow diff helpers', () => {
  it('counts leaf fields', () => {
    expect(countOutputFields({})).toBe(0);
    expect(countOutputFields({ a: 1, b: { c: 1, d: { e: 1 } }, f: [1, 2], g: {}, u: undefined })).toBe(5);
    expect(countLeafFields(5)).toBe(1);
  });
  it('compares deeply', () => {
    expect(deepEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual([1], { 0: 1 })).toBe(false);
    expect(deepEqual(new Date(5), new Date(5))).toBe(true);
    expect(deepEqual(new Date(5), {})).toBe(false);
  });
});
