import { isPlainObject, nonEmptyString } from './util';

/**
 * Contract descriptors (spec 1): a contract has a `contractName` and `fields`, each `{ path, dataType }`.
 * Rule schemas, flow request/response contracts and node authoring contracts all use this shape.
 */

export const RULE_CONTRACT_DATA_TYPES = [
  'string',
  'number',
  'boolean',
  'date',
  'dateTime',
  'object',
  'array',
  'any',
] as const;
export type RuleContractDataType = (typeof RULE_CONTRACT_DATA_TYPES)[number];

export interface RuleContractField {
  /** Dotted fact path, e.g. `applicant.creditScore`. */
  path: string;
  dataType: RuleContractDataType;
}

export interface RuleContract {
  contractName: string;
  fields: RuleContractField[];
}

/** A problem found in a rule definition or a manifest, with the path of the offending value. */
export interface LibraryProblem {
  path: string;
  message: string;
}

/** Checks a contract descriptor; pushes one problem per bad value (duplicate paths included). */
export function checkContract(value: unknown, at: string, problems: LibraryProblem[]): void {
  if (!isPlainObject(value)) {
    problems.push({ path: at, message: 'must be an object { contractName, fields }' });
    return;
  }
  if (!nonEmptyString(value.contractName))
    problems.push({ path: `${at}.contractName`, message: 'required (non-empty string)' });
  if (!Array.isArray(value.fields)) {
    problems.push({ path: `${at}.fields`, message: 'must be an array of { path, dataType }' });
    return;
  }
  const seen = new Set<string>();
  value.fields.forEach((field, i) => {
    const fp = `${at}.fields[${i}]`;
    if (!isPlainObject(field) || !nonEmptyString(field.path)) {
      problems.push({ path: `${fp}.path`, message: 'required (non-empty string)' });
      return;
    }
    if (seen.has(field.path))
      problems.push({ path: `${fp}.path`, message: `duplicate path '${field.path}'` });
    seen.add(field.path);
    if (!RULE_CONTRACT_DATA_TYPES.includes(field.dataType as RuleContractDataType))
      problems.push({
        path: `${fp}.dataType`,
        message: `must be one of ${RULE_CONTRACT_DATA_TYPES.join(', ')}`,
      });
  });
}

/** A copy of a contract holding only `contractName` and `fields` (no stray properties). */
export function copyContract(contract: RuleContract): RuleContract {
  return {
    contractName: contract.contractName,
    fields: contract.fields.map((f) => ({ path: f.path, dataType: f.dataType })),
  };
}

/** Reads a dotted path (`applicant.creditScore`) from facts; undefined when any segment is missing. */
export function readFactPath(facts: Record<string, unknown>, path: string): unknown {
  let current: unknown = facts;
  for (const segment of path.split('.')) {
    if (!isPlainObject(current)) return undefined;
    current = current[segment];
  }
  return current;
}
