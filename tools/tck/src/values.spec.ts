import { Decimal, parseDate, parseDateTime, parseDuration, parseTime } from '@arbiter/feel';
import { parseXml } from '@arbiter/dmn';
import { parseValueHolder, tckEquals } from './values';

const holder = (xml: string) =>
  parseValueHolder(
    parseXml(
      `<expected xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">${xml}</expected>`,
    ),
  );

describe('TCK value parsing', () => {
  it('parses typed scalars', () => {
    expect(String(holder('<value xsi:type="xsd:decimal">1.50</value>'))).toBe('1.5');
    expect(holder('<value xsi:type="xsd:boolean">true</value>')).toBe(true);
    expect(holder('<value xsi:type="xsd:string"> a </value>')).toBe(' a ');
    expect(String(holder('<value xsi:type="xsd:date">2020-01-02</value>'))).toBe('2020-01-02');
    expect(String(holder('<value xsi:type="xsd:dateTime">2020-01-02T10:00:00Z</value>'))).toBe(
      '2020-01-02T10:00:00Z',
    );
    expect(String(holder('<value xsi:type="xsd:duration">P1Y2M</value>'))).toBe('P1Y2M');
    expect(holder('<value xsi:nil="true"/>')).toBeNull();
  });
  it('parses lists and components', () => {
    const v = holder(
      '<list><item><value xsi:type="xsd:decimal">1</value></item><item><value xsi:nil="true"/></item></list>',
    );
    expect(Array.isArray(v) && v.length).toBe(2);
    const c = holder(
      '<component name="a"><value xsi:type="xsd:string">x</value></component><component name="b"><list/></component>',
    ) as Record<string, unknown>;
    expect(c.a).toBe('x');
    expect(c.b).toEqual([]);
  });
});

describe('TCK comparison rules', () => {
  it('compares decimals numerically', () => {
    expect(tckEquals(new Decimal('1.0'), 1)).toBe(true);
    expect(tckEquals(new Decimal('1.5'), 1)).toBe(false);
    expect(tckEquals(new Decimal('10'), '10')).toBe(false);
  });
  it('accepts expected values printed with fewer digits, within one unit of the last digit', () => {
    expect(tckEquals(new Decimal('54.59815003'), new Decimal('54.59815003314423907811026120286088'))).toBe(
      true,
    );
    expect(tckEquals(new Decimal('54.59815004'), new Decimal('54.59815003314423907811026120286088'))).toBe(
      true,
    );
    expect(tckEquals(new Decimal('54.59815009'), new Decimal('54.59815003314423907811026120286088'))).toBe(
      false,
    );
    // short expected values are compared exactly
    expect(tckEquals(new Decimal('0.33'), new Decimal('0.3333333333333333333333333333333333'))).toBe(false);
  });
  it('compares strings and booleans exactly', () => {
    expect(tckEquals('a', 'a')).toBe(true);
    expect(tckEquals('a', 'A')).toBe(false);
    expect(tckEquals(true, true)).toBe(true);
    expect(tckEquals(true, null)).toBe(false);
  });
  it('compares temporal values by value and kind', () => {
    expect(tckEquals(parseDate('2020-01-01'), parseDate('2020-01-01'))).toBe(true);
    expect(tckEquals(parseDate('2020-01-01'), parseDateTime('2020-01-01T00:00:00'))).toBe(false);
    expect(tckEquals(parseTime('10:00:00Z'), parseTime('10:00:00+00:00'))).toBe(true);
    expect(tckEquals(parseDuration('P1D'), parseDuration('PT24H'))).toBe(true);
    expect(tckEquals(parseDuration('P1Y'), parseDuration('P12M'))).toBe(true);
    expect(tckEquals(parseDuration('P1Y'), parseDuration('P1D'))).toBe(false);
  });
  it('compares lists element-wise and contexts by keys', () => {
    expect(tckEquals([new Decimal(1), 'a'], [1, 'a'])).toBe(true);
    expect(tckEquals([new Decimal(1)], [1, 2])).toBe(false);
    expect(tckEquals({ a: new Decimal(1) }, { a: 1 })).toBe(true);
    expect(tckEquals({ a: new Decimal(1) }, { a: 1, b: 2 })).toBe(false);
  });
  it('nil expects null', () => {
    expect(tckEquals(null, null)).toBe(true);
    expect(tckEquals(null, 0)).toBe(false);
  });
});
