import type { RuleContract, RuleContractDataType, RuleContractField } from '@arbiter/rule-engine';

/**
 * Structural result fields (success flags, messages, error codes): part of a node's result envelope,
 * not facts. Matched on the last path segment, case-insensitively (`result.isSuccess` is structural).
 */
const STRUCTURAL_FIELDS = new Set([
  'success',
  'issuccess',
  'succeeded',
  'issucceeded',
  'message',
  'messages',
  'errormessage',
  'errormessages',
  'error',
  'errors',
  'errorcode',
  'errorcodes',
]);

export function isStructuralField(path: string): boolean {
  const last = path.split('.').pop() ?? path;
  return STRUCTURAL_FIELDS.has(last.toLowerCase());
}

export function withoutStructuralFields(fields: RuleContractField[]): RuleContractField[] {
  return fields.filter((f) => !isStructuralField(f.path));
}

/** Fields of several lists, each path once (the first occurrence wins), order kept. */
export function unionFields(...lists: RuleContractField[][]): RuleContractField[] {
  const seen = new Map<string, RuleContractField>();
  for (const list of lists)
    for (const field of list)
      if (!seen.has(field.path)) seen.set(field.path, { path: field.path, dataType: field.dataType });
  return [...seen.values()];
}

export function contractOf(contractName: string, fields: RuleContractField[]): RuleContract {
  return { contractName, fields };
}

/** The contract data type of a literal output value (`{ tier: 'gold' }` → string). */
export function dataTypeOfValue(value: unknown): RuleContractDataType {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (Array.isArray(value)) return 'array';
  if (value !== null && typeof value === 'object') return 'object';
  return 'any';
}
