/** DMN 1.1–1.5 model: plain data structures and the XML reader. */
import { XmlNode, child, children, parseXml, textOf } from './xml';

export const DMN_NAMESPACES = [
  'http://www.omg.org/spec/DMN/20151101/dmn.xsd', // 1.1
  'http://www.omg.org/spec/DMN/20180521/MODEL/', // 1.2
  'https://www.omg.org/spec/DMN/20191111/MODEL/', // 1.3
  'https://www.omg.org/spec/DMN/20211108/MODEL/', // 1.4
  'https://www.omg.org/spec/DMN/20230324/MODEL/', // 1.5
];

export interface InformationItem {
  name: string;
  typeRef?: string;
}

export type Expression =
  | { kind: 'literal'; text: string; typeRef?: string; id?: string }
  | { kind: 'context'; entries: { variable?: InformationItem; value: Expression | null }[]; typeRef?: string }
  | {
      kind: 'invocation';
      fn: Expression | null;
      bindings: { name: string; value: Expression | null }[];
      typeRef?: string;
    }
  | { kind: 'relation'; columns: InformationItem[]; rows: (Expression | null)[][]; typeRef?: string }
  | { kind: 'list'; items: (Expression | null)[]; typeRef?: string }
  | {
      kind: 'function';
      functionKind: 'FEEL' | 'Java' | 'PMML';
      params: InformationItem[];
      body: Expression | null;
      typeRef?: string;
    }
  | { kind: 'decisionTable'; table: DecisionTable; typeRef?: string }
  | {
      kind: 'conditional';
      if: Expression | null;
      then: Expression | null;
      else: Expression | null;
      typeRef?: string;
    }
  | { kind: 'filter'; in: Expression | null; match: Expression | null; typeRef?: string }
  | { kind: 'for'; variable: string; in: Expression | null; return: Expression | null; typeRef?: string }
  | {
      kind: 'some' | 'every';
      variable: string;
      in: Expression | null;
      satisfies: Expression | null;
      typeRef?: string;
    }
  | { kind: 'unsupported'; element: string };

/** Decision table as plain data; evaluated by a rule engine (a small reference evaluator lives in decision-table.ts). */
export interface DecisionTable {
  hitPolicy: string;
  aggregation?: string;
  preferredOrientation?: string;
  inputs: { label?: string; expression: string; typeRef?: string; inputValues?: string }[];
  outputs: {
    name?: string;
    label?: string;
    typeRef?: string;
    outputValues?: string;
    defaultOutputEntry?: string;
  }[];
  rules: { id?: string; inputEntries: string[]; outputEntries: string[]; annotations?: string[] }[];
}

export interface ItemDefinition {
  name: string;
  typeRef?: string;
  isCollection: boolean;
  allowedValues?: string;
  typeConstraint?: string;
  components: ItemDefinition[];
  functionItem?: { parameters: InformationItem[]; outputTypeRef?: string };
}

export interface Decision {
  id: string;
  name: string;
  /** the decision's `<description>` */
  description?: string;
  variable: InformationItem;
  expression: Expression | null;
  requiredDecisions: string[]; // ids
  requiredInputs: string[]; // ids
  requiredKnowledge: string[]; // ids
}
export interface InputData {
  id: string;
  name: string;
  variable: InformationItem;
}
export interface BusinessKnowledgeModel {
  id: string;
  name: string;
  variable: InformationItem;
  logic: Expression | null; // a function definition
  requiredKnowledge: string[];
}
export interface DecisionService {
  id: string;
  name: string;
  variable: InformationItem;
  outputDecisions: string[];
  encapsulatedDecisions: string[];
  inputDecisions: string[];
  inputData: string[];
}

export interface DmnModel {
  name: string;
  namespace: string;
  dmnVersion: string;
  itemDefinitions: ItemDefinition[];
  decisions: Decision[];
  inputData: InputData[];
  bkms: BusinessKnowledgeModel[];
  decisionServices: DecisionService[];
  imports: { namespace: string; name: string; locationURI?: string; importType?: string }[];
}

function href(n: XmlNode | undefined): string {
  const h = n?.attrs.href ?? '';
  const i = h.indexOf('#');
  return i >= 0 ? h.slice(i + 1) : h;
}
function infoItem(n: XmlNode | undefined, fallbackName = ''): InformationItem {
  return { name: n?.attrs.name ?? fallbackName, typeRef: n?.attrs.typeRef };
}
function literalText(n: XmlNode | undefined): string | undefined {
  if (!n) return undefined;
  const t = child(n, 'text');
  return textOf(t ?? n).trim();
}

const EXPRESSION_ELEMENTS = new Set([
  'literalExpression',
  'context',
  'invocation',
  'relation',
  'list',
  'functionDefinition',
  'decisionTable',
  'conditional',
  'filter',
  'for',
  'some',
  'every',
]);

function firstExpression(n: XmlNode | undefined): Expression | null {
  if (!n) return null;
  const e = n.children.find((c) => EXPRESSION_ELEMENTS.has(c.name));
  return e ? readExpression(e) : null;
}

export function readExpression(n: XmlNode): Expression {
  const typeRef = n.attrs.typeRef;
  switch (n.name) {
    case 'literalExpression':
      return { kind: 'literal', text: textOf(child(n, 'text')), typeRef, id: n.attrs.id };
    case 'context':
      return {
        kind: 'context',
        typeRef,
        entries: children(n, 'contextEntry').map((e) => ({
          variable: child(e, 'variable') ? infoItem(child(e, 'variable')) : undefined,
          value: firstExpression(e),
        })),
      };
    case 'invocation': {
      return {
        kind: 'invocation',
        typeRef,
        fn: firstExpression(n),
        bindings: children(n, 'binding').map((b) => ({
          name: child(b, 'parameter')?.attrs.name ?? '',
          value: firstExpression(b),
        })),
      };
    }
    case 'relation':
      return {
        kind: 'relation',
        typeRef,
        columns: children(n, 'column').map((c) => infoItem(c)),
        rows: children(n, 'row').map((r) =>
          r.children.filter((c) => EXPRESSION_ELEMENTS.has(c.name)).map((c) => readExpression(c)),
        ),
      };
    case 'list':
      return {
        kind: 'list',
        typeRef,
        items: n.children.filter((c) => EXPRESSION_ELEMENTS.has(c.name)).map((c) => readExpression(c)),
      };
    case 'functionDefinition':
    case 'encapsulatedLogic':
      return {
        kind: 'function',
        typeRef,
        functionKind: (n.attrs.kind as 'FEEL') ?? 'FEEL',
        params: children(n, 'formalParameter').map((p) => infoItem(p)),
        body: firstExpression(n),
      };
    case 'decisionTable':
      return { kind: 'decisionTable', typeRef, table: readDecisionTable(n) };
    case 'conditional':
      return {
        kind: 'conditional',
        typeRef,
        if: firstExpression(child(n, 'if')),
        then: firstExpression(child(n, 'then')),
        else: firstExpression(child(n, 'else')),
      };
    case 'filter':
      return {
        kind: 'filter',
        typeRef,
        in: firstExpression(child(n, 'in')),
        match: firstExpression(child(n, 'match')),
      };
    case 'for':
      return {
        kind: 'for',
        typeRef,
        variable: n.attrs.iteratorVariable ?? '',
        in: firstExpression(child(n, 'in')),
        return: firstExpression(child(n, 'return')),
      };
    case 'some':
    case 'every':
      return {
        kind: n.name,
        typeRef,
        variable: n.attrs.iteratorVariable ?? '',
        in: firstExpression(child(n, 'in')),
        satisfies: firstExpression(child(n, 'satisfies')),
      };
  }
  return { kind: 'unsupported', element: n.name };
}

export function readDecisionTable(n: XmlNode): DecisionTable {
  return {
    hitPolicy: n.attrs.hitPolicy ?? 'UNIQUE',
    aggregation: n.attrs.aggregation,
    preferredOrientation: n.attrs.preferredOrientation,
    inputs: children(n, 'input').map((i) => {
      const ie = child(i, 'inputExpression');
      return {
        label: i.attrs.label,
        expression: literalText(ie) ?? '',
        typeRef: ie?.attrs.typeRef,
        inputValues: literalText(child(i, 'inputValues')),
      };
    }),
    outputs: children(n, 'output').map((o) => ({
      name: o.attrs.name,
      label: o.attrs.label,
      typeRef: o.attrs.typeRef,
      outputValues: literalText(child(o, 'outputValues')),
      defaultOutputEntry: literalText(child(o, 'defaultOutputEntry')),
    })),
    rules: children(n, 'rule').map((r) => ({
      id: r.attrs.id,
      inputEntries: children(r, 'inputEntry').map((e) => literalText(e) ?? '-'),
      outputEntries: children(r, 'outputEntry').map((e) => literalText(e) ?? ''),
      annotations: children(r, 'annotationEntry').map((e) => literalText(e) ?? ''),
    })),
  };
}

function readItemDefinition(n: XmlNode): ItemDefinition {
  const fi = child(n, 'functionItem');
  return {
    name: n.attrs.name ?? '',
    typeRef: textOf(child(n, 'typeRef')).trim() || undefined,
    isCollection: n.attrs.isCollection === 'true',
    allowedValues: literalText(child(n, 'allowedValues')),
    typeConstraint: literalText(child(n, 'typeConstraint')),
    components: children(n, 'itemComponent').map(readItemDefinition),
    functionItem: fi
      ? {
          parameters: children(fi, 'parameters').map((p) => infoItem(p)),
          outputTypeRef: fi.attrs.outputTypeRef,
        }
      : undefined,
  };
}

/** Reads a DMN model from its XML text, or from the tree `parseXml` made of it. */
export function readDmn(xml: string | XmlNode): DmnModel {
  const root = typeof xml === 'string' ? parseXml(xml) : xml;
  if (root.name !== 'definitions') throw new Error(`Not a DMN model: root element is <${root.name}>`);
  let version = 'unknown';
  for (const [k, v] of Object.entries(root.attrs)) {
    if (!k.startsWith('xmlns')) continue;
    const i = DMN_NAMESPACES.indexOf(v);
    if (i >= 0) version = ['1.1', '1.2', '1.3', '1.4', '1.5'][i];
  }
  const decisions: Decision[] = children(root, 'decision').map((d) => ({
    id: d.attrs.id ?? d.attrs.name,
    name: d.attrs.name ?? '',
    ...(child(d, 'description') ? { description: textOf(child(d, 'description')) } : {}),
    variable: infoItem(child(d, 'variable'), d.attrs.name),
    expression: firstExpression(d),
    requiredDecisions: children(d, 'informationRequirement').flatMap((r) =>
      children(r, 'requiredDecision').map(href),
    ),
    requiredInputs: children(d, 'informationRequirement').flatMap((r) =>
      children(r, 'requiredInput').map(href),
    ),
    requiredKnowledge: children(d, 'knowledgeRequirement').flatMap((r) =>
      children(r, 'requiredKnowledge').map(href),
    ),
  }));
  return {
    name: root.attrs.name ?? '',
    namespace: root.attrs.namespace ?? '',
    dmnVersion: version,
    itemDefinitions: children(root, 'itemDefinition').map(readItemDefinition),
    decisions,
    inputData: children(root, 'inputData').map((d) => ({
      id: d.attrs.id ?? d.attrs.name,
      name: d.attrs.name ?? '',
      variable: infoItem(child(d, 'variable'), d.attrs.name),
    })),
    bkms: children(root, 'businessKnowledgeModel').map((b) => ({
      id: b.attrs.id ?? b.attrs.name,
      name: b.attrs.name ?? '',
      variable: infoItem(child(b, 'variable'), b.attrs.name),
      logic: child(b, 'encapsulatedLogic') ? readExpression(child(b, 'encapsulatedLogic')!) : null,
      requiredKnowledge: children(b, 'knowledgeRequirement').flatMap((r) =>
        children(r, 'requiredKnowledge').map(href),
      ),
    })),
    decisionServices: children(root, 'decisionService').map((s) => ({
      id: s.attrs.id ?? s.attrs.name,
      name: s.attrs.name ?? '',
      variable: infoItem(child(s, 'variable'), s.attrs.name),
      outputDecisions: children(s, 'outputDecision').map(href),
      encapsulatedDecisions: children(s, 'encapsulatedDecision').map(href),
      inputDecisions: children(s, 'inputDecision').map(href),
      inputData: children(s, 'inputData').map(href),
    })),
    imports: children(root, 'import').map((i) => ({
      namespace: i.attrs.namespace ?? '',
      name: i.attrs.name ?? '',
      locationURI: i.attrs.locationURI,
      importType: i.attrs.importType,
    })),
  };
}

/** Every name declared in the model (used for multi-word name resolution in FEEL). */
export function collectNames(m: DmnModel): Set<string> {
  const names = new Set<string>();
  const addItem = (i: ItemDefinition) => {
    names.add(i.name);
    i.components.forEach(addItem);
  };
  m.itemDefinitions.forEach(addItem);
  const addExpr = (e: Expression | null | undefined) => {
    if (!e) return;
    switch (e.kind) {
      case 'context':
        for (const en of e.entries) {
          if (en.variable) names.add(en.variable.name);
          addExpr(en.value);
        }
        break;
      case 'function':
        e.params.forEach((p) => names.add(p.name));
        addExpr(e.body);
        break;
      case 'invocation':
        e.bindings.forEach((b) => {
          names.add(b.name);
          addExpr(b.value);
        });
        addExpr(e.fn);
        break;
      case 'relation':
        e.columns.forEach((c) => names.add(c.name));
        e.rows.forEach((r) => r.forEach(addExpr));
        break;
      case 'list':
        e.items.forEach(addExpr);
        break;
      case 'conditional':
        addExpr(e.if);
        addExpr(e.then);
        addExpr(e.else);
        break;
      case 'filter':
        addExpr(e.in);
        addExpr(e.match);
        break;
      case 'for':
        names.add(e.variable);
        addExpr(e.in);
        addExpr(e.return);
        break;
      case 'some':
      case 'every':
        names.add(e.variable);
        addExpr(e.in);
        addExpr(e.satisfies);
        break;
      case 'decisionTable':
        e.table.outputs.forEach((o) => o.name && names.add(o.name));
        break;
    }
  };
  for (const d of m.decisions) {
    names.add(d.name);
    addExpr(d.expression);
  }
  for (const d of m.inputData) names.add(d.name);
  for (const b of m.bkms) {
    names.add(b.name);
    addExpr(b.logic);
  }
  for (const s of m.decisionServices) names.add(s.name);
  for (const i of m.imports) if (i.name) names.add(i.name);
  names.delete('');
  return names;
}
