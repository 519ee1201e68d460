import { toJs } from '@arbiter/feel';
import { DmnEvaluator } from './evaluator';
import { readDmn } from './model';

const NS = 'https://www.omg.org/spec/DMN/20191111/MODEL/';

/** A model with one decision table `D` over the number input `X`; each rule is [input entry, output entry]. */
function table(
  attrs: string,
  rules: [string, string][],
  output = '<output name="out"/>',
): (x: number) => { value: unknown; warnings: string[] } {
  const xml = `<?xml version="1.0"?>
<definitions xmlns="${NS}" name="m" namespace="urn:test" id="defs">
  <inputData id="i" name="X"><variable name="X" typeRef="number"/></inputData>
  <decision id="d" name="D">
    <variable name="D"/>
    <informationRequirement><requiredInput href="#i"/></informationRequirement>
    <decisionTable ${attrs}>
      <input><inputExpression typeRef="number"><text>X</text></inputExpression></input>
      ${output}
      ${rules.map(([i, o]) => `<rule><inputEntry><text>${i}</text></inputEntry><outputEntry><text>${o}</text></outputEntry></rule>`).join('\n      ')}
    </decisionTable>
  </decision>
</definitions>`;
  const ev = new DmnEvaluator(readDmn(xml));
  return (x) => {
    const { value, warnings } = ev.evaluateDecision('D', { X: x });
    return { value: toJs(value as never), warnings };
  };
}

const LOW_HIGH: [string, string][] = [
  ['&lt; 10', '"LOW"'],
  ['&lt; 20', '"HIGH"'],
  ['&lt; 30', '"MID"'],
];
const RANKED = '<output name="out"><outputValues><text>"HIGH","MID","LOW"</text></outputValues></output>';

describe('DMN decision tables (hit policies from @arbiter/rule-engine, FEEL values)', () => {
  it('UNIQUE: one match gives its output; several give null and a warning', () => {
    const d = table('hitPolicy="UNIQUE"', LOW_HIGH);
    expect(d(25)).toEqual({ value: 'MID', warnings: [] });
    expect(d(5)).toEqual({ value: null, warnings: ['UNIQUE hit policy: more than one rule matched'] });
  });

  it('ANY: equal outputs give that output; different ones null and a warning', () => {
    const d = table('hitPolicy="ANY"', [
      ['&lt; 10', '1'],
      ['&lt; 20', '1.0'],
      ['&gt; 25', '2'],
      ['&gt; 26', '3'],
    ]);
    expect(d(5).value).toBe(1);
    expect(d(30)).toEqual({
      value: null,
      warnings: ['ANY hit policy: matched rules have different outputs'],
    });
  });

  it('FIRST, RULE ORDER and COLLECT follow rule order', () => {
    expect(table('hitPolicy="FIRST"', LOW_HIGH)(5).value).toBe('LOW');
    expect(table('hitPolicy="RULE ORDER"', LOW_HIGH)(5).value).toEqual(['LOW', 'HIGH', 'MID']);
    expect(table('hitPolicy="COLLECT"', LOW_HIGH)(15).value).toEqual(['HIGH', 'MID']);
  });

  it('PRIORITY and OUTPUT ORDER rank by the output values list, ties in rule order', () => {
    expect(table('hitPolicy="PRIORITY"', LOW_HIGH, RANKED)(5).value).toBe('HIGH');
    expect(table('hitPolicy="OUTPUT ORDER"', LOW_HIGH, RANKED)(5).value).toEqual(['HIGH', 'MID', 'LOW']);
    expect(table('hitPolicy="PRIORITY"', LOW_HIGH)(5).value).toBe('LOW');
  });

  it('COLLECT aggregations: SUM and MIN / MAX skip nulls, COUNT counts every matched rule', () => {
    const rules: [string, string][] = [
      ['&lt; 10', '1.1'],
      ['&lt; 20', 'null'],
      ['&lt; 30', '2.2'],
    ];
    expect(table('hitPolicy="COLLECT" aggregation="SUM"', rules)(5).value).toBe(3.3);
    expect(table('hitPolicy="COLLECT" aggregation="MIN"', rules)(5).value).toBe(1.1);
    expect(table('hitPolicy="COLLECT" aggregation="MAX"', rules)(5).value).toBe(2.2);
    expect(table('hitPolicy="COLLECT" aggregation="COUNT"', rules)(5).value).toBe(3);
    expect(table('hitPolicy="COLLECT" aggregation="SUM"', LOW_HIGH)(5).value).toBeNull();
    expect(table('hitPolicy="COLLECT" aggregation="MAX"', [['-', 'true']])(5).value).toBeNull();
  });

  it('no match: default output entry, else null, [] for lists, 0 for COUNT', () => {
    expect(table('hitPolicy="UNIQUE"', LOW_HIGH)(50).value).toBeNull();
    expect(table('hitPolicy="COLLECT"', LOW_HIGH)(50).value).toEqual([]);
    expect(table('hitPolicy="COLLECT" aggregation="COUNT"', LOW_HIGH)(50).value).toBe(0);
    expect(table('hitPolicy="COLLECT" aggregation="SUM"', LOW_HIGH)(50).value).toBeNull();
    const withDefault =
      '<output name="out"><defaultOutputEntry><text>"NONE"</text></defaultOutputEntry></output>';
    expect(table('hitPolicy="UNIQUE"', LOW_HIGH, withDefault)(50).value).toBe('NONE');
    expect(table('hitPolicy="COLLECT"', LOW_HIGH, withDefault)(50).value).toBe('NONE');
  });

  it('an unknown hit policy or aggregation gives null and a warning', () => {
    expect(table('hitPolicy="SOMETIMES"', LOW_HIGH)(5)).toEqual({
      value: null,
      warnings: ['unknown hit policy SOMETIMES'],
    });
    expect(table('hitPolicy="COLLECT" aggregation="AVG"', LOW_HIGH)(5).warnings).toEqual([
      'unknown hit policy COLLECT AVG',
    ]);
  });
});
