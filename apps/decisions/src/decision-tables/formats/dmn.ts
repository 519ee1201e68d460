/**
 * DMN 1.3 mapping. Export: one `definitions` with one `decision` holding the `decisionTable`
 * (hit policy + aggregation per DMN, `inputExpression` = column name or expression with its typeRef,
 * outputs with `outputValues` and `defaultOutputEntry`, rules with FEEL literal output entries and
 * the row priority in a `priority` annotation column). Import: every decision table of the file through
 * `readDmn` of @arbiter/dmn; output entries must be FEEL constants (they become JSON values).
 */
import { evaluate as feelEvaluate, tryCompileExpression } from '@arbiter/feel';
import { readDmn } from '@arbiter/dmn';
import { dmnTypeRef, normalizeColumnType, normalizeHitPolicy, toDmnHitPolicy } from '@arbiter/rule-engine';
import { StoredDefinition } from '../application/table-model';

export const DMN13_NS = 'https://www.omg.org/spec/DMN/20191111/MODEL/';

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const ncName = (s: string, prefix: string) => `${prefix}_${s.replace(/[^A-Za-z0-9_.-]/g, '_')}`;

/** JSON value → FEEL literal text. */
export function feelLiteral(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(feelLiteral).join(', ')}]`;
  return `{${Object.entries(v as object)
    .map(([k, x]) => `${JSON.stringify(k)}: ${feelLiteral(x)}`)
    .join(', ')}}`;
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
  def.inputColumns.forEach((c, k) => {
    out.push(`      <input id="input_${k + 1}" label="${esc(c.name)}">`);
    out.push(`        <inputExpression id="inputExpression_${k + 1}"${typeAttr(c.type)}>`);
    out.push(`          <text>${esc(c.expression ?? c.name)}</text>`);
    out.push('        </inputExpression>');
    out.push('      </input>');
  });
  def.outputColumns.forEach((c, k) => {
    out.push(`      <output id="output_${k + 1}" name="${esc(c.name)}"${typeAttr(c.type)}>`);
    if (c.outputValues)
      out.push(
        `        <outputValues id="outputValues_${k + 1}"><text>${esc(c.outputValues.map(feelLiteral).join(', '))}</text></outputValues>`,
      );
    if (c.defaultValue !== undefined)
      out.push(
        `        <defaultOutputEntry id="default_${k + 1}"><text>${esc(feelLiteral(c.defaultValue))}</text></defaultOutputEntry>`,
      );
    out.push('      </output>');
  });
  out.push('      <annotation name="priority"/>');
  def.rows.forEach((row, r) => {
    out.push(`      <rule id="${esc(ncName(row.id, 'rule'))}">`);
    def.inputColumns.forEach((c, k) =>
      out.push(
        `        <inputEntry id="ie_${r + 1}_${k + 1}"><text>${esc(row.inputConditions[c.name] ?? '-')}</text></inputEntry>`,
      ),
    );
    def.outputColumns.forEach((c, k) =>
      out.push(
        `        <outputEntry id="oe_${r + 1}_${k + 1}"><text>${esc(feelLiteral(row.outputs[c.name] ?? null))}</text></outputEntry>`,
      ),
    );
    out.push(`        <annotationEntry><text>${row.priority}</text></annotationEntry>`);
    out.push('      </rule>');
  });
  out.push('    </decisionTable>');
  out.push('  </decision>');
  out.push('</definitions>');
  return out.join('\n') + '\n';
}

function constant(text: string | undefined, what: string): unknown {
  if (!text || !text.trim()) return null;
  const compiled = tryCompileExpression(text);
  if (!compiled.ok) throw new Error(`${what}: ${compiled.error.message}`);
  return feelEvaluate(text);
}

const SIMPLE_NAME = /^[\p{L}_][\p{L}\p{N}_ ]*$/u;

/** Every decision table of a DMN file (1.1–1.5 namespaces) as a definition; errors name the decision. */
export function fromDmn(xml: string): Record<string, unknown>[] {
  const model = readDmn(xml);
  const tables: Record<string, unknown>[] = [];
  for (const decision of model.decisions) {
    if (decision.expression?.kind !== 'decisionTable') continue;
    const t = decision.expression.table;
    const hitPolicy = normalizeHitPolicy(t.hitPolicy, t.aggregation) ?? t.hitPolicy;
    const inputColumns = t.inputs.map((i, k) => {
      const text = i.expression.trim();
      const name = SIMPLE_NAME.test(text) ? text : i.label?.trim() || `input${k + 1}`;
      return {
        name,
        type: normalizeColumnType(i.typeRef) ?? 'any',
        ...(name !== text && text ? { expression: text } : {}),
      };
    });
    const outputColumns = t.outputs.map((o, k) => {
      const name =
        o.name ?? (t.outputs.length === 1 ? decision.variable.name || decision.name : `output${k + 1}`);
      const list = o.outputValues ? constant(`[${o.outputValues}]`, `output values of ${name}`) : undefined;
      const dflt = o.defaultOutputEntry ? constant(o.defaultOutputEntry, `default of ${name}`) : undefined;
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
        if (cell && cell !== '-') inputConditions[c.name] = cell;
      });
      const outputs: Record<string, unknown> = {};
      outputColumns.forEach((c, k) => {
        const v = constant(rule.outputEntries[k], `rule ${r + 1}, output ${c.name}`);
        if (v !== null) outputs[c.name] = v;
      });
      return {
        id: rule.id ? rule.id.replace(/^rule_/, '') : `rule-${r + 1}`,
        priority: Number.isInteger(priority) ? priority : 0,
        inputConditions,
        outputs,
      };
    });
    tables.push({ name: decision.name, hitPolicy, inputColumns, outputColumns, rows });
  }
  if (!tables.length) throw new Error('The DMN file holds no decision table');
  return tables;
}
