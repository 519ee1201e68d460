import { nestsDeeperThan } from './validation';

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
