import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { Configuration } from './configuration';

/** Startup failure caused by configuration; the message names every offending key. */
export class ConfigurationError extends Error {
  constructor(
    message: string,
    readonly keys: string[],
  ) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

type KeyKind = 'string' | 'number' | 'boolean' | 'array' | 'dictionary';

interface KeyBinding {
  property: string;
  key: string;
  kind: KeyKind | 'auto';
}

function kindOfDefault(value: unknown): KeyKind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return 'number';
  if (Array.isArray(value)) return 'array';
  if (value !== null && typeof value === 'object') return 'dictionary';
  return 'string';
}

const BINDINGS = Symbol('arbiter:config-bindings');

/**
 * Binds a settings property to a configuration key. The value's type comes from the property's
 * declared type (string, number, boolean, string[]) unless `kind` says otherwise; the property
 * initialiser is the default. Combine with class-validator decorators for the rules.
 */
export function ConfigKey(key: string, kind?: KeyKind): PropertyDecorator {
  return (target, property) => {
    const declared = Reflect.getMetadata('design:type', target, property);
    // Declared types come from decorator metadata; when a compiler does not emit them (inferred
    // types under swc), the kind is taken from the property's default value at bind time.
    const inferred: KeyKind | 'auto' =
      kind ??
      (declared === Number
        ? 'number'
        : declared === Boolean
          ? 'boolean'
          : declared === Array
            ? 'array'
            : declared === String
              ? 'string'
              : 'auto');
    const list: KeyBinding[] = Reflect.getOwnMetadata(BINDINGS, target) ?? [
      ...(Reflect.getMetadata(BINDINGS, target) ?? []),
    ];
    list.push({ property: String(property), key, kind: inferred });
    Reflect.defineMetadata(BINDINGS, list, target);
  };
}

export function configKeysOf(type: new () => object): KeyBinding[] {
  return Reflect.getMetadata(BINDINGS, type.prototype) ?? [];
}

function convert(
  binding: KeyBinding,
  config: Configuration,
  defaults: Record<string, unknown>,
): { value?: unknown; problem?: string } {
  const key = binding.key;
  const kind = binding.kind === 'auto' ? kindOfDefault(defaults[binding.property]) : binding.kind;
  if (kind === 'array') return { value: config.getArray(key) };
  if (kind === 'dictionary') {
    const dict = config.getDictionary(key);
    return { value: Object.keys(dict).length ? dict : undefined };
  }
  const raw = config.get(key);
  if (raw === undefined) return {};
  if (kind === 'string') return { value: raw };
  const text = raw.trim();
  if (kind === 'boolean') {
    if (/^(true|1|yes)$/i.test(text)) return { value: true };
    if (/^(false|0|no)$/i.test(text)) return { value: false };
    return { problem: `${key} must be true or false (got '${raw}')` };
  }
  const n = Number(text);
  if (text === '' || !Number.isFinite(n)) return { problem: `${key} must be a number (got '${raw}')` };
  return { value: n };
}

function flattenErrors(errors: ValidationError[], keyOf: (property: string) => string): string[] {
  return errors.flatMap((e) => [
    ...Object.values(e.constraints ?? {}).map(
      (m) => `${keyOf(e.property)}: ${m.replace(e.property, keyOf(e.property))}`,
    ),
    ...flattenErrors(e.children ?? [], keyOf),
  ]);
}

/** Reads, converts and validates a settings class. Throws ConfigurationError naming the keys. */
export function bindConfig<T extends object>(type: new () => T, config: Configuration): T {
  const instance = new type();
  const problems: string[] = [];
  const badKeys: string[] = [];
  const bindings = configKeysOf(type);
  for (const binding of bindings) {
    const { value, problem } = convert(binding, config, instance as Record<string, unknown>);
    if (problem) {
      problems.push(problem);
      badKeys.push(binding.key);
    } else if (value !== undefined) {
      (instance as Record<string, unknown>)[binding.property] = value;
    }
  }
  const keyOf = (property: string) => bindings.find((b) => b.property === property)?.key ?? property;
  const validated = plainToInstance(type, instance);
  const errors = validateSync(validated, { forbidUnknownValues: false });
  for (const error of errors) badKeys.push(keyOf(error.property));
  problems.push(...flattenErrors(errors, keyOf));
  if (problems.length > 0) {
    throw new ConfigurationError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`, badKeys);
  }
  return validated;
}
