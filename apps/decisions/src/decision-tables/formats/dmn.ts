/**
 * DMN 1.3 mapping. Export: one `definitions` with one `decision` holding the `decisionTable` (hit policy
 * + aggregation per DMN, `inputExpression` = column name or expression with its typeRef, outputs with
 * `outputValues` and `defaultOutputEntry`, rules with FEEL output entries, the row priority in a
 * `priority` annotation column). Values are FEEL literals of their column's type (`date("2024-01-31")`,
 * `duration("P1D")`, decimal numbers); computed outputs (`outputExpressions`) are their FEEL text. What
 * DMN cannot say (a column's exact name, `required`, a computed column named as its expression, the
 * `All` hit policy, a row id that is not an XML name) goes into `extensionElements` in our namespace, so our own export reads back losslessly.
 *
 * Import: every decision table of the file (DMN 1.1–1.5) through `readDmn` of @arbiter/dmn. A constant
 * output entry becomes a JSON value; any other output entry is kept as an output expression (an invalid
 * one makes the table fail, naming its row and column). Default output entries and output values must be
 * constants. A document type declaration (DTD, entities) is refused before parsing.
 */
import { Decimal, evaluate as feelEvaluate, tryCompileExpression, type Node } from '@arbiter/feel';
import { children, child, parseXml, readDmn, type XmlNode } from '@arbiter/dmn';
import {
  dmnTypeRef,
  normalizeColumnType,
  normalizeHitPolicy,
  own,
  setOwn,
  toDmnHitPolicy,
} from '@arbiter/rule-engine';
import { StoredDefinition } from '../application/table-model';

export const DMN13_NS = 'https://www.omg.org/spec/DMN/20191111/MODEL/';
/** Our extension elements (`extensionElements` content of another namespace is allowed by the DMN XSD). */
export const ARBITER_DMN_NS = 'https://arbiter.dev/dmn/extensions';

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const NC_NAME_REST = /[^A-Za-z0-9_.-]/g;
const ncName = (s: string, prefix: string) => `${prefix}_${s.replace(NC_NAME_REST, '_')}`;

/** A FEEL string literal (the escapes FEEL's lexer reads: `\" \\ \n \r \t \uXXXX`). */
export function feelString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += '\\u' + code.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

/** A JS number as a FEEL number literal (FEEL has no exponent notation: `1e21` is written out). */
function feelNumber(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? new Decimal(s).toFixed() : s;
}

/** The FEEL function that reads an ISO text as a value of a temporal column type. */
const TEMPORAL_LITERAL: Record<string, string> = {
  date: 'date',
  time: 'time',
  dateTime: 'date and time',
  duration: 'duration',
  yearMonthDuration: 'duration',
};

/**
 * JSON value → FEEL literal text. With a column type, an ISO text of a temporal type is written as that
 * type's value (`date("2024-01-31")`), not as a string.
 */
export function feelLiteral(v: unknown, type?: string): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') {
    const fn = TEMPORAL_LITERAL[normalizeColumnType(type) ?? 'any'];
    return fn ? `${fn}(${feelString(v)})` : feelString(v);
  }
  if (typeof v === 'number') return feelNumber(v);
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => feelLiteral(x)).join(', ')}]`;
  return `{${Object.entries(v as object)
    .map(([k, x]) => `${feelString(k)}: ${feelLiteral(x)}`)
    .join(', ')}}`;
}

/** `<extensionElements>` holding one of our elements, or nothing when it would say nothing. */
function extension(indent: string, element: string, attrs: Record<string, string | undefined>): string[] {
  const set = Object.entries(attrs).filter(([, v]) => v !== undefined);
  if (set.length === 0) return [];
  const text = set.map(([k, v]) => ` ${k}="${esc(v!)}"`).join('');
  return [
    `${indent}<extensionElements><arbiter:${element} xmlns:arbiter="${ARBITER_DMN_NS}"${text}/></extensionElements>`,
  ];
}

export function toDmn(def: StoredDefinition, id: string): string {
  const policy = normalizeHitPolicy(def.hitPolicy) ?? 'First';
  const { hitPolicy, aggregation } = toDmnHitPolicy(policy);
  const typeAttr = (t?: string) => {
    const ref = dmnTypeRef(normalizeColumnType(t) ?? 'any');
    return ref ? ` typeRef="${esc(ref)}"` : '';
  };
  const out: string[] = [];
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  out.push(
    `<definitions xmlns="${DMN13_NS}" id="${esc(ncName(id, 'definitions'))}" name="${esc(def.name)}" namespace="https://arbiter.dev/decision-tables/${esc(id)}">`,
  );
  out.push(`  <decision id="${esc(ncName(id, 'decision'))}" name="${esc(def.name)}">`);
  if (def.description) out.push(`    <description>${esc(def.description)}</description>`);
  out.push(
    `    <decisionTable id="${esc(ncName(id, 'table'))}" hitPolicy="${hitPolicy}"${aggregation ? ` aggregation="${aggregation}"` : ''} outputLabel="${esc(def.name)}">`,
  );
  // DMN writes `All` as RULE ORDER: say which it was
  out.push(...extension('      ', 'table', { hitPolicy: policy === 'All' ? policy : undefined }));
  def.inputColumns.forEach((c, k) => {
    out.push(`      <input id="input_${k + 1}" label="${esc(c.name)}">`);
    out.push(
      ...extension('        ', 'column', {
        name: c.name,
        required: c.required ? 'true' : undefined,
        // an expression that is the column's own name still makes the column computed
        computed: c.expression !== undefined && c.expression === c.name ? 'true' : undefined,
      }),
    );
    out.push(`        <inputExpression id="inputExpression_${k + 1}"${typeAttr(c.type)}>`);
    out.push(`          <text>${esc(c.expression ?? c.name)}</text>`);
    out.push('        </inputExpression>');
    out.push('      </input>');
  });
  def.outputColumns.forEach((c, k) => {
    out.push(`      <output id="output_${k + 1}" name="${esc(c.name)}"${typeAttr(c.type)}>`);
    if (c.outputValues)
      out.push(
        `        <outputValues id="outputValues_${k + 1}"><text>${esc(c.outputValues.map((v) => feelLiteral(v, c.type)).join(', '))}</text></outputValues>`,
      );
    if (c.defaultValue !== undefined)
      out.push(
        `        <defaultOutputEntry id="default_${k + 1}"><text>${esc(feelLiteral(c.defaultValue, c.type))}</text></defaultOutputEntry>`,
      );
    out.push('      </output>');
  });
  out.push('      <annotation name="priority"/>');
  def.rows.forEach((row, r) => {
    const ruleId = ncName(row.id, 'rule');
    out.push(`      <rule id="${esc(ruleId)}">`);
    out.push(...extension('        ', 'row', { id: ruleId === `rule_${row.id}` ? undefined : row.id }));
    def.inputColumns.forEach((c, k) =>
      out.push(
        `        <inputEntry id="ie_${r + 1}_${k + 1}"><text>${esc(String(own(row.inputConditions, c.name) ?? '-'))}</text></inputEntry>`,
      ),
    );
    def.outputColumns.forEach((c, k) => {
      const expression = row.outputExpressions ? own(row.outputExpressions, c.name) : undefined;
      const text =
        typeof expression === 'string' ? expression : feelLiteral(own(row.outputs, c.name) ?? null, c.type);
      out.push(`        <outputEntry id="oe_${r + 1}_${k + 1}"><text>${esc(text)}</text></outputEntry>`);
    });
    out.push(`        <annotationEntry><text>${row.priority}</text></annotationEntry>`);
    out.push('      </rule>');
  });
  out.push('    </decisionTable>');
  out.push('  </decision>');
  out.push('</definitions>');
  return out.join('\n') + '\n';
}

/** Functions whose call with literal arguments is a constant (`date("2024-01-31")`). */
const LITERAL_FUNCTIONS = new Set(['date', 'time', 'date and time', 'duration', 'number', 'string']);

/** Whether a FEEL expression is a literal: its value cannot depend on anything (no names, no loops). */
function isLiteral(n: Node): boolean {
  switch (n.t) {
    case 'num':
    case 'str':
    case 'bool':
    case 'null':
    case 'at':
      return true;
    case 'neg':
      return n.arg.t === 'num';
    case 'list':
      return n.items.every(isLiteral);
    case 'context':
      return n.entries.every((e) => isLiteral(e.value));
    case 'call':
      return (
        n.fn.t === 'name' &&
        LITERAL_FUNCTIONS.has(n.fn.name) &&
        !n.named &&
        n.args.every((a) => a.t === 'str' || a.t === 'num')
      );
    default:
      return false;
  }
}

/** A literal's JSON value, or `undefined` when the text is not a literal (or not valid FEEL). */
function literalValue(text: string): unknown {
  const compiled = tryCompileExpression(text);
  if (!compiled.ok || !isLiteral(compiled.value.ast)) return undefined;
  return feelEvaluate(text);
}

/** A default output entry or output value list: must be a literal. */
function constant(text: string, what: string): unknown {
  const value = literalValue(text);
  if (value === undefined) throw new Error(`${what} must be a FEEL literal, not '${text.slice(0, 80)}'`);
  return value;
}

const SIMPLE_NAME = /^[\p{L}_][\p{L}\p{N}_ ]*$/u;

/** One of our extension elements under `node` (`<extensionElements><arbiter:name …/>`). */
function ours(node: XmlNode | undefined, name: string): Record<string, string> | undefined {
  return child(child(node, 'extensionElements'), name)?.attrs;
}

/** A decision of a DMN file that is not imported: it is no decision table. */
export interface DecisionNotImported {
  name: string;
  /** what the decision is: `literal`, `context`, `invocation`, … or `none` (no expression) */
  kind: string;
}

/**
 * Every decision table of a DMN file (1.1–1.5 namespaces) as a definition; errors name the decision.
 * Decisions of other kinds are pushed to `notImported` when given.
 */
export function fromDmn(xml: string, notImported?: DecisionNotImported[]): Record<string, unknown>[] {
  const root = parseXml(xml);
  const model = readDmn(root);
  const decisionNodes = new Map(children(root, 'decision').map((d) => [d.attrs.id ?? d.attrs.name, d]));
  const tables: Record<string, unknown>[] = [];
  for (const decision of model.decisions) {
    if (decision.expression?.kind !== 'decisionTable') {
      notImported?.push({ name: decision.name || decision.id, kind: decision.expression?.kind ?? 'none' });
      continue;
    }
    const t = decision.expression.table;
    const tableNode = child(decisionNodes.get(decision.id), 'decisionTable');
    const inputNodes = children(tableNode, 'input');
    const ruleNodes = children(tableNode, 'rule');
    const exactPolicy = normalizeHitPolicy(ours(tableNode, 'table')?.hitPolicy);
    const hitPolicy = exactPolicy ?? normalizeHitPolicy(t.hitPolicy, t.aggregation) ?? t.hitPolicy;
    const inputColumns = t.inputs.map((i, k) => {
      const text = i.expression.trim();
      const ext = ours(inputNodes[k], 'column');
      const name = ext?.name || (SIMPLE_NAME.test(text) ? text : i.label?.trim() || `input${k + 1}`);
      return {
        name,
        type: normalizeColumnType(i.typeRef) ?? 'any',
        ...(ext?.required === 'true' ? { required: true } : {}),
        ...((name !== text || ext?.computed === 'true') && text ? { expression: text } : {}),
      };
    });
    const outputColumns = t.outputs.map((o, k) => {
      const name =
        o.name ?? (t.outputs.length === 1 ? decision.variable.name || decision.name : `output${k + 1}`);
      const list = o.outputValues ? constant(`[${o.outputValues}]`, `output values of ${name}`) : undefined;
      const dflt = o.defaultOutputEntry?.trim()
        ? constant(o.defaultOutputEntry, `default of ${name}`)
        : undefined;
      return {
        name,
        type: normalizeColumnType(o.typeRef) ?? 'any',
        ...(dflt !== undefined ? { defaultValue: dflt } : {}),
        ...(Array.isArray(list) ? { outputValues: list } : {}),
      };
    });
    const rows = t.rules.map((rule, r) => {
      const priority = Number(rule.annotations?.[0] ?? 0);
      const inputConditions: Record<string, string> = {};
      inputColumns.forEach((c, k) => {
        const cell = (rule.inputEntries[k] ?? '-').trim();
        if (cell && cell !== '-') setOwn(inputConditions, c.name, cell);
      });
      const outputs: Record<string, unknown> = {};
      const outputExpressions: Record<string, string> = {};
      outputColumns.forEach((c, k) => {
        const text = (rule.outputEntries[k] ?? '').trim();
        if (!text) return;
        const value = literalValue(text);
        // not a literal: kept as FEEL, evaluated when the row matches (an invalid one fails the table)
        if (value === undefined) setOwn(outputExpressions, c.name, text);
        else if (value !== null) setOwn(outputs, c.name, value);
      });
      const id = ours(ruleNodes[r], 'row')?.id ?? (rule.id ? rule.id.replace(/^rule_/, '') : `rule-${r + 1}`);
      return {
        id,
        priority: Number.isInteger(priority) ? priority : 0,
        inputConditions,
        outputs,
        ...(Object.keys(outputExpressions).length ? { outputExpressions } : {}),
      };
    });
    tables.push({
      name: decision.name,
      ...(decision.description?.trim() ? { description: decision.description } : {}),
      hitPolicy,
      inputColumns,
      outputColumns,
      rows,
    });
  }
  return tables; // none: the import answers 400 IMPORT_EMPTY
}
