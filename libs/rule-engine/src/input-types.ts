import {
  DaysTimeDuration,
  FeelDate,
  FeelTime,
  YearsMonthsDuration,
  fromJs,
  parseDate,
  parseDateTime,
  parseDuration,
  parseTime,
  typeName,
} from '@arbiter/feel';
import { EvaluationError } from './errors';
import { COLUMN_TYPES, ColumnType } from './types';

const TYPE_ALIASES: Record<string, ColumnType> = {
  string: 'string',
  number: 'number',
  integer: 'number',
  decimal: 'number',
  double: 'number',
  boolean: 'boolean',
  date: 'date',
  time: 'time',
  datetime: 'dateTime',
  'date and time': 'dateTime',
  duration: 'duration',
  'days and time duration': 'duration',
  daytimeduration: 'duration',
  yearmonthduration: 'yearMonthDuration',
  'years and months duration': 'yearMonthDuration',
  any: 'any',
  '': 'any',
};

/** Canonical column type from our names or DMN typeRefs (`date and time`, `feel:number`). Null if unknown. */
export function normalizeColumnType(type: unknown): ColumnType | null {
  if (type === undefined || type === null) return 'any';
  if (typeof type !== 'string') return null;
  const key = type
    .trim()
    .replace(/^(feel|xsd):/i, '')
    .toLowerCase();
  return TYPE_ALIASES[key] ?? (COLUMN_TYPES.includes(type as ColumnType) ? (type as ColumnType) : null);
}

/** DMN typeRef for a column type. */
export function dmnTypeRef(type: ColumnType): string | undefined {
  switch (type) {
    case 'dateTime':
      return 'date and time';
    case 'duration':
      return 'days and time duration';
    case 'yearMonthDuration':
      return 'years and months duration';
    case 'any':
      return undefined;
    default:
      return type;
  }
}

function mismatch(column: string, type: string, value: unknown): EvaluationError {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return new EvaluationError(
    'INPUT_TYPE_MISMATCH',
    `Input '${column}' must be a ${type}, got ${got === 'string' ? `'${String(value).slice(0, 40)}'` : got}`,
    column,
  );
}

/**
 * Converts one JSON input value to the FEEL value its column type asks for; throws
 * `INPUT_TYPE_MISMATCH` otherwise. Temporal columns take ISO strings (`2024-01-31`, `PT1H`).
 */
export function coerceInput(value: unknown, type: ColumnType, column: string): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw mismatch(column, 'string', value);
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw mismatch(column, 'number', value);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw mismatch(column, 'boolean', value);
      return value;
    case 'date': {
      const v = typeof value === 'string' ? parseDate(value) : null;
      if (!(v instanceof FeelDate)) throw mismatch(column, 'date (YYYY-MM-DD)', value);
      return v;
    }
    case 'time': {
      const v = typeof value === 'string' ? parseTime(value) : null;
      if (!(v instanceof FeelTime)) throw mismatch(column, 'time (hh:mm:ss)', value);
      return v;
    }
    case 'dateTime': {
      const v = typeof value === 'string' ? parseDateTime(value) : null;
      if (!v || typeName(v) !== 'date and time') throw mismatch(column, 'date and time (ISO 8601)', value);
      return v;
    }
    case 'duration': {
      const v = typeof value === 'string' ? parseDuration(value) : null;
      if (!(v instanceof DaysTimeDuration))
        throw mismatch(column, 'days and time duration (PnDTnHnMnS)', value);
      return v;
    }
    case 'yearMonthDuration': {
      const v = typeof value === 'string' ? parseDuration(value) : null;
      if (!(v instanceof YearsMonthsDuration))
        throw mismatch(column, 'years and months duration (PnYnM)', value);
      return v;
    }
    default:
      return typeof value === 'object' ? fromJs(value) : value;
  }
}

/** Does a JSON output value fit its column type? (temporal types take ISO strings) */
export function outputFits(value: unknown, type: ColumnType): boolean {
  if (value === null || value === undefined) return true;
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'any':
      return true;
    default:
      try {
        coerceInput(value, type, '');
        return true;
      } catch {
        return false;
      }
  }
}
