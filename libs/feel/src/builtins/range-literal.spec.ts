import { fv, warningsOf } from '../test-helpers';

/** `range(text)` with the text given as a JS string */
const range = (text: string): string => fv(`range(${JSON.stringify(text)})`);

describe('range(from): the text form of a range', () => {
  it('reads numeric, string and temporal literal endpoints', () => {
    expect(range('[1..10]')).toBe('[1..10]');
    expect(range(']1..10[')).toBe('(1..10)');
    expect(range('[-1..-0.5]')).toBe('[-1..-0.5]');
    expect(range('["a".."z"]')).toBe('["a".."z"]');
    expect(range('[@"2020-01-01"..@"2021-01-01")')).toBe('[2020-01-01..2021-01-01)');
  });

  it('reads endpoints built by the conversion functions, by position or by name, on literals', () => {
    expect(range('[date("2020-01-01")..date(2021, 1, 1))')).toBe('[2020-01-01..2021-01-01)');
    expect(range('[date(from: "2020-01-01")..date(from: "2020-12-31")]')).toBe('[2020-01-01..2020-12-31]');
    expect(range('[date and time("2020-01-01T00:00:00")..date and time("2020-01-02T00:00:00")]')).toBe(
      '[2020-01-01T00:00:00..2020-01-02T00:00:00]',
    );
    expect(range('[duration("P1D")..duration("P2D")]')).toBe('[P1D..P2D]');
  });

  it('is null for anything that is not a range of literals', () => {
    for (const text of [
      '[1..x]',
      '[1+1..3]',
      '[abs(1)..3]',
      '[string("a")..string("b")]',
      '1',
      '[1..2',
      '[null..1]',
    ])
      expect(range(text)).toBe('null');
    expect(range('[date(from: "2020-01-01" + "")..date("2021-01-01")]')).toBe('null');
  });

  it('is null with a warning when the endpoints are out of order or not comparable', () => {
    expect(range('[5..1]')).toBe('null');
    expect(warningsOf('range("[5..1]")')).toEqual(['range start is after its end']);
    expect(warningsOf('range("[1..\\"a\\"]")')).toEqual(['range endpoints are not comparable']);
  });
});
