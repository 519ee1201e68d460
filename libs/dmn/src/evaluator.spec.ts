import { DmnEvaluator } from './evaluator';
import { readDmn } from './model';

const NS = 'https://www.omg.org/spec/DMN/20191111/MODEL/';
const model = `<?xml version="1.0"?>
<definitions xmlns="${NS}" name="loans" namespace="urn:test" id="defs">
  <itemDefinition name="tAmount"><typeRef>number</typeRef><allowedValues><text>[0..1000000]</text></allowedValues></itemDefinition>
  <itemDefinition name="tApplicant">
    <itemComponent name="Monthly Income"><typeRef>number</typeRef></itemComponent>
    <itemComponent name="Name"><typeRef>string</typeRef></itemComponent>
  </itemDefinition>
  <itemDefinition name="tNames" isCollection="true"><typeRef>string</typeRef></itemDefinition>
  <inputData id="i1" name="Loan Amount"><variable name="Loan Amount" typeRef="tAmount"/></inputData>
  <inputData id="i2" name="Applicant"><variable name="Applicant" typeRef="tApplicant"/></inputData>
  <inputData id="i3" name="Names"><variable name="Names" typeRef="tNames"/></inputData>
  <businessKnowledgeModel id="b1" name="Installment">
    <variable name="Installment"/>
    <encapsulatedLogic>
      <formalParameter name="amount" typeRef="number"/><formalParameter name="months" typeRef="number"/>
      <literalExpression><text>amount / months</text></literalExpression>
    </encapsulatedLogic>
  </businessKnowledgeModel>
  <decision id="d1" name="Monthly Installment">
    <variable name="Monthly Installment" typeRef="number"/>
    <informationRequirement><requiredInput href="#i1"/></informationRequirement>
    <knowledgeRequirement><requiredKnowledge href="#b1"/></knowledgeRequirement>
    <invocation>
      <literalExpression><text>Installment</text></literalExpression>
      <binding><parameter name="amount"/><literalExpression><text>Loan Amount</text></literalExpression></binding>
      <binding><parameter name="months"/><literalExpression><text>12</text></literalExpression></binding>
    </invocation>
  </decision>
  <decision id="d2" name="Affordable">
    <variable name="Affordable" typeRef="boolean"/>
    <informationRequirement><requiredDecision href="#d1"/></informationRequirement>
    <informationRequirement><requiredInput href="#i2"/></informationRequirement>
    <context>
      <contextEntry><variable name="Disposable"/><literalExpression><text>Applicant.Monthly Income * 0.4</text></literalExpression></contextEntry>
      <contextEntry><literalExpression><text>Monthly Installment &lt;= Disposable</text></literalExpression></contextEntry>
    </context>
  </decision>
  <decision id="d3" name="Risk">
    <variable name="Risk" typeRef="string"/>
    <informationRequirement><requiredInput href="#i1"/></informationRequirement>
    <decisionTable hitPolicy="FIRST">
      <input><inputExpression typeRef="number"><text>Loan Amount</text></inputExpression></input>
      <output name="risk" typeRef="string"/>
      <rule><inputEntry><text>&lt; 1000</text></inputEntry><outputEntry><text>"LOW"</text></outputEntry></rule>
      <rule><inputEntry><text>[1000..50000]</text></inputEntry><outputEntry><text>"MEDIUM"</text></outputEntry></rule>
      <rule><inputEntry><text>-</text></inputEntry><outputEntry><text>"HIGH"</text></outputEntry></rule>
    </decisionTable>
  </decision>
  <decision id="d4" name="Name Count">
    <variable name="Name Count" typeRef="number"/>
    <informationRequirement><requiredInput href="#i3"/></informationRequirement>
    <literalExpression><text>count(Names)</text></literalExpression>
  </decision>
</definitions>`;

describe('DMN reader', () => {
  const m = readDmn(model);
  it('reads the DRG elements', () => {
    expect(m.dmnVersion).toBe('1.3');
    expect(m.decisions.map((d) => d.name)).toEqual([
      'Monthly Installment',
      'Affordable',
      'Risk',
      'Name Count',
    ]);
    expect(m.inputData).toHaveLength(3);
    expect(m.bkms[0].logic).toMatchObject({
      kind: 'function',
      params: [{ name: 'amount' }, { name: 'months' }],
    });
    expect(m.itemDefinitions[1].components.map((c) => c.name)).toEqual(['Monthly Income', 'Name']);
    expect(m.itemDefinitions[0].allowedValues).toBe('[0..1000000]');
  });
  it('parses decision tables into plain data', () => {
    const dt = m.decisions[2].expression;
    expect(dt).toMatchObject({
      kind: 'decisionTable',
      table: {
        hitPolicy: 'FIRST',
        inputs: [{ expression: 'Loan Amount', typeRef: 'number' }],
        outputs: [{ name: 'risk', typeRef: 'string' }],
        rules: [
          { inputEntries: ['< 1000'], outputEntries: ['"LOW"'] },
          { inputEntries: ['[1000..50000]'], outputEntries: ['"MEDIUM"'] },
          { inputEntries: ['-'], outputEntries: ['"HIGH"'] },
        ],
      },
    });
  });
  it('rejects non-DMN documents', () => {
    expect(() => readDmn('<html/>')).toThrow(/Not a DMN model/);
  });
});

describe('DRG evaluation', () => {
  const ev = new DmnEvaluator(readDmn(model));
  it('evaluates decisions with their requirements, BKMs and contexts', () => {
    expect(ev.evaluateDecision('Monthly Installment', { 'Loan Amount': 1200 }).value).toBe(100);
    expect(
      ev.evaluateDecision('Affordable', {
        'Loan Amount': 1200,
        Applicant: { 'Monthly Income': 300, Name: 'A' },
      }).value,
    ).toBe(true);
    expect(
      ev.evaluateDecision('Affordable', {
        'Loan Amount': 12000,
        Applicant: { 'Monthly Income': 300, Name: 'A' },
      }).value,
    ).toBe(false);
  });
  it('evaluates decision tables', () => {
    expect(ev.evaluateDecision('Risk', { 'Loan Amount': 500 }).value).toBe('LOW');
    expect(ev.evaluateDecision('Risk', { 'Loan Amount': 5000 }).value).toBe('MEDIUM');
    expect(ev.evaluateDecision('Risk', { 'Loan Amount': 500000 }).value).toBe('HIGH');
  });
  it('coerces input data to item definitions', () => {
    // outside allowed values -> null
    const r = ev.evaluateDecision('Monthly Installment', { 'Loan Amount': 2000000 });
    expect(r.value).toBeNull();
    expect(r.warnings.join()).toMatch(/allowed values/);
    // wrong type -> null
    expect(ev.evaluateDecision('Monthly Installment', { 'Loan Amount': 'many' }).value).toBeNull();
    // singleton list conversion for collections
    expect(ev.evaluateDecision('Name Count', { Names: 'solo' }).value).toBe(1);
    expect(ev.evaluateDecision('Name Count', { Names: ['a', 'b'] }).value).toBe(2);
    expect(ev.evaluateDecision('Name Count', { Names: [1] }).value).toBeNull();
  });
  it('evaluateAll returns every decision', () => {
    const r = ev.evaluateAll({
      'Loan Amount': 1200,
      Applicant: { 'Monthly Income': 300, Name: 'A' },
      Names: [],
    });
    expect(r.values).toMatchObject({
      'Monthly Installment': 100,
      Affordable: true,
      Risk: 'MEDIUM',
      'Name Count': 0,
    });
  });
  it('invokes BKMs directly', () => {
    expect(ev.invoke('Installment', { amount: 10, months: 5 }).value).toBe(2);
  });
  it('unknown decisions throw', () => {
    expect(() => ev.evaluateDecision('nope')).toThrow(/Unknown decision/);
  });
});
