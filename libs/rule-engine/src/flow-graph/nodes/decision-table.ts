import { compileDecisionTable } from '../../compile';
import { checkDecisionTable, isObject, nonEmptyString } from '../../document/checks';
import { embeddedTable } from '../../document/table-contract';
import type { DecisionTableDefinition } from '../../types';
import { emptyContract, FlowCompileError, type FlowNodeKindDefinition } from '../node-kind';
import { DONE, emit, emitAll, errorOutcome } from '../runtime';
import { checkPositiveInteger } from '../config-checks';

/**
 * `decision-table`: evaluates an embedded `table` or a stored one named by `tableRef` (fetched at compile
 * time through the `resolveDecisionTable` port); stores the output values under `outputVariable`, or
 * merges them at the top level without one.
 */
export const decisionTableNode: FlowNodeKindDefinition<'decision-table'> = {
  kind: 'decision-table',
  branching: false,
  configSchema: {
    type: 'object',
    description: 'Exactly one of table (embedded definition) or tableRef (stored table).',
    oneOf: [
      { required: ['table'], properties: { table: { type: 'object' } } },
      {
        required: ['tableRef'],
        properties: {
          tableRef: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              name: { type: 'string' },
              version: { type: 'integer', minimum: 1 },
            },
            anyOf: [{ required: ['id'] }, { required: ['name'] }],
          },
        },
      },
    ],
    properties: { outputVariable: { type: 'string' } },
  },
  validate(config, at, problems) {
    const hasTable = config.table !== undefined;
    const hasRef = config.tableRef !== undefined;
    if (hasTable === hasRef) {
      problems.push({
        path: at,
        message: 'exactly one of table (embedded) or tableRef (reference) is required',
      });
    } else if (hasTable) {
      checkDecisionTable(`${at}.table`, config.table, problems);
    } else {
      const ref = config.tableRef;
      if (!isObject(ref) || (!nonEmptyString(ref.id) && !nonEmptyString(ref.name)))
        problems.push({ path: `${at}.tableRef`, message: 'must name the table by id or name' });
      else checkPositiveInteger(`${at}.tableRef.version`, ref.version, problems);
    }
  },
  async compile(node, at, ctx) {
    const config = node.config;
    let definition: DecisionTableDefinition;
    if (config.table !== undefined) definition = config.table as DecisionTableDefinition;
    else if (ctx.resolveDecisionTable)
      definition = await ctx.resolveDecisionTable(
        config.tableRef as { id?: string; name?: string; version?: number },
      );
    else throw new FlowCompileError([{ path: `${at}.config.tableRef`, message: 'no decision table source' }]);
    let table: ReturnType<typeof compileDecisionTable>;
    try {
      table = compileDecisionTable(definition);
    } catch (error) {
      throw new FlowCompileError([{ path: `${at}.config.table`, message: (error as Error).message }]);
    }
    const outputVariable = typeof config.outputVariable === 'string' ? config.outputVariable : undefined;
    return (s) => {
      try {
        const values = table.evaluate(s.view).outputValues;
        if (outputVariable) emit(s, outputVariable, values);
        else if (values) emitAll(s, values);
        return DONE;
      } catch (error) {
        return errorOutcome(error, 'DECISION_TABLE_FAILED');
      }
    };
  },
  contract(config) {
    const out = emptyContract();
    const outputVariable = nonEmptyString(config.outputVariable) ? config.outputVariable : undefined;
    const table = embeddedTable(config.table);
    const ref = isObject(config.tableRef) ? config.tableRef : undefined;
    if (table) {
      out.embeddedTables.push(table);
      out.tables.push(table.name);
      out.derivedOutputs = outputVariable
        ? [{ path: outputVariable, dataType: 'object' }]
        : table.outputs.map((f) => ({ ...f }));
    } else if (ref) {
      out.tables.push(nonEmptyString(ref.name) ? ref.name : `id:${String(ref.id)}`);
      if (outputVariable) out.derivedOutputs = [{ path: outputVariable, dataType: 'object' }];
    }
    return out;
  },
};
