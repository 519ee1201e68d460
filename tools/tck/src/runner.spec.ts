import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runDirectory, runTck } from './runner';

const NS = 'https://www.omg.org/spec/DMN/20230324/MODEL/';
function fixture(): string {
  const root = mkdtempSync(join(tmpdir(), 'tck-'));
  const dir = join(root, 'compliance-level-3', '9999-feel-sample');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, '9999-feel-sample.dmn'),
    `<definitions xmlns="${NS}" name="9999" namespace="urn:x" id="d">
      <inputData id="i" name="x"><variable name="x" typeRef="number"/></inputData>
      <decision id="d1" name="double"><variable name="double"/><informationRequirement><requiredInput href="#i"/></informationRequirement>
        <literalExpression><text>x * 2</text></literalExpression></decision>
      <decision id="d2" name="third"><variable name="third"/><literalExpression><text>1 / 3</text></literalExpression></decision>
      <decision id="d3" name="bad"><variable name="bad"/><literalExpression><text>1 / 0</text></literalExpression></decision>
    </definitions>`,
  );
  writeFileSync(
    join(dir, '9999-feel-sample-test-01.xml'),
    `<testCases xmlns="http://www.omg.org/spec/DMN/20160719/testcase" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
      <modelName>9999-feel-sample.dmn</modelName>
      <testCase id="1"><inputNode name="x"><value xsi:type="xsd:decimal">21</value></inputNode>
        <resultNode name="double"><expected><value xsi:type="xsd:decimal">42</value></expected></resultNode></testCase>
      <testCase id="2"><resultNode name="third"><expected><value xsi:type="xsd:decimal">0.3333333333333333333333333333333333</value></expected></resultNode></testCase>
      <testCase id="3"><resultNode name="bad" errorResult="true"><expected><value xsi:nil="true"/></expected></resultNode></testCase>
      <testCase id="4"><resultNode name="third"><expected><value xsi:type="xsd:decimal">0.5</value></expected></resultNode></testCase>
      <testCase id="5"><resultNode name="missing"><expected><value xsi:type="xsd:decimal">1</value></expected></resultNode></testCase>
    </testCases>`,
  );
  return root;
}

describe('TCK runner', () => {
  it('counts passed, failed and not run results per directory', () => {
    const root = fixture();
    const r = runDirectory(join(root, 'compliance-level-3', '9999-feel-sample'), 'compliance-level-3');
    expect(r).toMatchObject({ passed: 3, failed: 1, notRun: 1, feelFocused: true });
    const failed = r.cases.find((c) => c.status === 'failed')!;
    expect(failed).toMatchObject({
      testCase: '4',
      expected: '0.5',
      actual: '0.3333333333333333333333333333333333',
    });
  });
  it('aggregates totals over levels', () => {
    const report = runTck(fixture());
    expect(report.totals).toEqual({ passed: 3, failed: 1, notRun: 1 });
    expect(report.feelFocused.directories).toBe(1);
  });
});
