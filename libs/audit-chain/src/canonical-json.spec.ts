import { canonicalJson } from './canonical-json';

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys by UTF-16 code units, drops whitespace, writes ES numbers', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: null }], a: 'x', '\u20ac': 1, '\r': 2, 1: true })).toBe(
      '{"\\r":2,"1":true,"a":"x","b":[3,{"a":null,"z":1}],"€":1}',
    );
    expect(canonicalJson({ n: 1e21, m: 0.000001, k: -0 })).toBe('{"k":0,"m":0.000001,"n":1e+21}');
  });
});
