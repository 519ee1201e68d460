import type { RuleContractDataType, RuleContractField } from '../library/contract';
import { isObject, nonEmptyString } from './checks';

/** A decision table's contract for the catalog: its input and output columns as fact fields. */
export interface EmbeddedTable {
  name: string;
  inputs: RuleContractField[];
  outputs: RuleContractField[];
}

/** The contract data type of a decision-table column type (`time`/`duration` are strings on the wire). */
export function dataTypeOfColumn(type: unknown): RuleContractDataType {
  switch (type) {
    case 'string':
    case 'number':
    case 'boolean':
    case 'date':
    case 'dateTime':
      return type;
    case 'time':
    case 'duration':
      return 'string';
    default:
      return 'any';
  }
}

/** A decision table's contract (its columns) from its JSON definition (embedded or stored). */
export function embeddedTable(table: unknown): EmbeddedTable | undefined {
  if (!isObject(table) || !nonEmptyString(table.name)) return undefined;
  const columns = (list: unknown) =>
    (Array.isArray(list) ? list : [])
      .filter((c): c is Record<string, unknown> => isObject(c) && nonEmptyString(c.name))
      .map((c) => ({ path: c.name as string, dataType: dataTypeOfColumn(c.type) }));
  return {
    name: table.name,
    inputs: columns(table.inputColumns),
    outputs: columns(table.outputColumns),
  };
}
