import { compileUnaryTests } from '@arbiter/feel';
import { feelLiteralAt, inputValueAt, orderedLiteral } from './literals';
import { probesOf } from './probes';

const probes = (text: string, unlisted = 'zz') =>
  probesOf(compileUnaryTests(text).ast, unlisted).map((p) => `${p.kind}:${JSON.stringify(p.value)}`);

describe('boundary probes read from FEEL unary tests', () => {
  it('>= 5000 gives just below, on and just above', () => {
    expect(probes('>= 5000')).toEqual(['below:4999', 'on:5000', 'above:5001']);
  });
  it('a decimal literal steps by its last decimal place', () => {
    expect(probes('< 0.25')).toEqual(['below:0.24', 'on:0.25', 'above:0.26']);
  });
  it('ranges give both ends, open or closed', () => {
    expect(probes('(1..10]')).toEqual(['below:0', 'on:1', 'above:2', 'below:9', 'on:10', 'above:11']);
  });
  it('listed strings and one unlisted', () => {
    expect(probes('"low","medium"', 'other risk')).toEqual([
      'listed:"low"',
      'listed:"medium"',
      'unlisted:"other risk"',
    ]);
  });
  it('dates and durations step by a day and a second', () => {
    expect(probes('< date("2020-01-01")')).toEqual([
      'below:"2019-12-31"',
      'on:"2020-01-01"',
      'above:"2020-01-02"',
    ]);
    expect(probes('<= duration("P30D")')).toEqual(['below:"P29DT23H59M59S"', 'on:"P30D"', 'above:"P30DT1S"']);
    expect(probes('@"P1Y2M"')).toEqual(['below:"P1Y1M"', 'on:"P1Y2M"', 'above:"P1Y3M"']);
    expect(probes('> time("10:00:00")')).toEqual(['below:"09:59:59"', 'on:"10:00:00"', 'above:"10:00:01"']);
  });
  it('-, booleans, null and negation', () => {
    expect(probes('-')).toEqual([]);
    expect(probes('true')).toEqual(['boolean:true', 'boolean:false']);
    expect(probes('null')).toEqual(['null:null']);
    expect(probes('not("high")', 'u')).toEqual(['listed:"high"', 'unlisted:"u"']);
  });
  it('literals inside expressions the shapes do not describe still give probes', () => {
    expect(probes('abs(?) > 3')).toEqual(expect.arrayContaining(['on:3']));
  });
  it('writes a moved literal back as FEEL and as JSON input', () => {
    const lit = orderedLiteral(
      compileUnaryTests('date("2024-02-28")').ast.t === 'ulist'
        ? (compileUnaryTests('date("2024-02-28")').ast as any).tests[0]
        : null,
    )!;
    expect(feelLiteralAt(lit, lit.n + 1)).toBe('date("2024-02-29")');
    expect(inputValueAt(lit, lit.n + 2)).toBe('2024-03-01');
  });
});
