import { CommonErrorCodes } from '@arbiter/contracts';
import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { sameJsonText } from '../http/json-body-sliced';
import { opaqueJsonProperties } from '../openapi/opaque-json';
import { AppError, FieldProblem } from './app-error';

/** The type checks of the field decorators: when one fails, the field's range and length rules say nothing more. */
const TYPE_CONSTRAINTS = new Set([
  'isInt',
  'isNumber',
  'isString',
  'isBoolean',
  'isArray',
  'isObject',
  'isIn',
  'isDateString',
  'isUuid',
  'isEmail',
  'isUrl',
]);

/** The constraints of one field that name its problems: the failed type check alone, when there is one. */
function problemsOf(error: ValidationError): [string, string][] {
  const failed = Object.entries(error.constraints ?? {});
  const typeFailure = failed.find(([name]) => TYPE_CONSTRAINTS.has(name));
  return typeFailure ? [typeFailure] : failed;
}

function collect(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent
      ? /^\d+$/.test(error.property)
        ? `${parent}[${error.property}]`
        : `${parent}.${error.property}`
      : error.property;
    const own = problemsOf(error).map(([, message]) => ({ field, message }));
    return [...own, ...collect(error.children ?? [], field)];
  });
}

/** The `code` the failed rules carry (`context: { code }`, see the field decorators' `code`), per failed rule. */
function collectCodes(errors: ValidationError[]): (string | undefined)[] {
  return errors.flatMap((error) => [
    ...problemsOf(error).map(([name]) => {
      // an absent required field is a validation failure, not a bad value of the field's kind
      if (error.value === undefined) return undefined;
      const code = (error.contexts?.[name] as { code?: unknown } | undefined)?.code;
      return typeof code === 'string' ? code : undefined;
    }),
    ...collectCodes(error.children ?? []),
  ]);
}

/**
 * Flattens class-validator errors into `{ field, message }` with dotted paths: one per problem (a value
 * of the wrong type is one problem, not also "must not be greater than …"). */
export function toFieldProblems(errors: ValidationError[]): FieldProblem[] {
  return collect(errors);
}

/**
 * The error of a failed DTO validation: `VALIDATION_FAILED`, or the field's own code when every failed
 * rule carries the same one (a body `version` out of range is `INVALID_VERSION`, as in a path).
 */
export function validationError(errors: ValidationError[]): AppError {
  const details = toFieldProblems(errors);
  const codes = new Set(collectCodes(errors));
  const [only] = [...codes];
  if (codes.size === 1 && only !== undefined)
    return AppError.badRequest(only, `${details[0].field}: ${details[0].message}`, details);
  return AppError.validation(details);
}

/**
 * How deeply a request body's arrays and objects may nest. Real documents (rule sets, flow graphs, tables)
 * stay under 20; a body nested thousands deep would overflow the stack of the recursive walkers behind the
 * pipe (class-transformer, class-validator) and of every later one.
 */
export const MAX_BODY_DEPTH = 128;

/** Whether `value` nests arrays or objects more than `limit` deep (iterative: no recursion of its own). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  return (scanBody(value, limit) & DEEP) !== 0;
}

/**
 * Text no database stores: a NUL character (PostgreSQL refuses it in `text` and in `jsonb`) or a lone
 * UTF-16 surrogate (not Unicode: it cannot be encoded as UTF-8).
 */
export function isUnstorableText(text: string): boolean {
  return text.indexOf('\u0000') >= 0 || !(text as unknown as WellFormed).isWellFormed();
}
interface WellFormed {
  isWellFormed(): boolean;
}

const DEEP = 1;
const UNSTORABLE = 2;
/** an object key named like a member every object inherits (`constructor`, `toString`, …) or `prototype` */
const INHERITED_KEY = 4;
const isInheritedKey = (key: string) => key in Object.prototype || key === 'prototype';

/**
 * One iterative walk over a body, giving flags: DEEP when arrays or objects nest `limit` deep (the walk
 * stops there), UNSTORABLE when a string (a value or an object key) is unstorable (`isUnstorableText`),
 * INHERITED_KEY when an object key is named like an Object.prototype member.
 */
function scanBody(value: unknown, limit: number): number {
  const scan = new BodyScan(value, limit);
  while (!scan.step(Infinity));
  return scan.found;
}

/** Nodes `scanBodySliced` walks between two looks at the clock. */
const SCAN_NODES = 2048;
/** Longest stretch (ms) `scanBodySliced` holds the event loop before handing it back. */
const SCAN_SLICE_MS = 4;

/**
 * `scanBody`, handing the event loop back every SCAN_SLICE_MS (a 100,000-row table holds nobody). A body of
 * up to SCAN_NODES arrays and objects (every usual request) is walked at once: a number, no promise.
 */
function scanBodySliced(value: unknown, limit: number): number | Promise<number> {
  const scan = new BodyScan(value, limit);
  if (scan.step(SCAN_NODES)) return scan.found;
  return scanRest(scan);
}

async function scanRest(scan: BodyScan): Promise<number> {
  let sliceEnd = performance.now() + SCAN_SLICE_MS;
  while (!scan.step(SCAN_NODES)) {
    if (performance.now() < sliceEnd) continue;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceEnd = performance.now() + SCAN_SLICE_MS;
  }
  return scan.found;
}

/** Distinct object keys whose flags a walk keeps (an array of objects repeats its keys). */
const MAX_KNOWN_KEYS = 1024;

/** The walk of `scanBody`, resumable: `step(n)` walks up to n nodes and says whether it is done. */
class BodyScan {
  found = 0;
  /** Arrays and objects to walk, and their depths (two stacks: no pair per node). */
  private readonly nodes: unknown[];
  private readonly depths: number[];
  /** The flags of the object keys met so far (UNSTORABLE, INHERITED_KEY or 0). */
  private readonly keys = new Map<string, number>();

  constructor(
    value: unknown,
    private readonly limit: number,
  ) {
    if (typeof value === 'string') {
      this.found = isUnstorableText(value) ? UNSTORABLE : 0;
      this.nodes = [];
      this.depths = [];
    } else {
      this.nodes = [value];
      this.depths = [0];
    }
  }

  step(count: number): boolean {
    const { nodes, depths, limit } = this;
    let found = this.found;
    for (let n = 0; n < count && nodes.length > 0; n++) {
      const node = nodes.pop();
      const depth = depths.pop()!;
      if (node === null || typeof node !== 'object') continue;
      if (depth >= limit) {
        this.found = found | DEEP;
        nodes.length = depths.length = 0; // the walk stops there
        return true;
      }
      if (Array.isArray(node)) {
        for (const child of node) {
          if (typeof child === 'string') {
            if (isUnstorableText(child)) found |= UNSTORABLE;
          } else if (child !== null && typeof child === 'object') {
            nodes.push(child);
            depths.push(depth + 1);
          }
        }
      } else {
        for (const key in node) {
          if (!Object.hasOwn(node, key)) continue;
          found |= this.keyFlags(key);
          const child = (node as Record<string, unknown>)[key];
          if (typeof child === 'string') {
            if (isUnstorableText(child)) found |= UNSTORABLE;
          } else if (child !== null && typeof child === 'object') {
            nodes.push(child);
            depths.push(depth + 1);
          }
        }
      }
    }
    this.found = found;
    return nodes.length === 0;
  }

  private keyFlags(key: string): number {
    let flags = this.keys.get(key);
    if (flags === undefined) {
      flags = (isUnstorableText(key) ? UNSTORABLE : 0) | (isInheritedKey(key) ? INHERITED_KEY : 0);
      if (this.keys.size < MAX_KNOWN_KEYS) this.keys.set(key, flags);
    }
    return flags;
  }
}

/**
 * The path (`rows[2].outputs.risk`, under `root`) of the first unstorable string of `value` — a value, or
 * an object key (then the path of the object, with the key) — or null when there is none. Iterative.
 */
export function findUnstorableText(value: unknown, root = 'body'): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (isUnstorableText(node)) return path;
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const entries: [string, unknown, boolean][] = Array.isArray(node)
      ? node.map((child, i) => [`${path}[${i}]`, child, false])
      : Object.keys(node).map((key) => [`${path}.${key}`, (node as Record<string, unknown>)[key], true]);
    // pushed in reverse: the first bad string in document order is found first
    for (let i = entries.length - 1; i >= 0; i--) {
      const [childPath, child, isKey] = entries[i];
      const key = childPath.slice(path.length + 1);
      if (isKey && isUnstorableText(key)) return path;
      stack.push([child, childPath]);
    }
  }
  return null;
}

/** The 400 INVALID_CHARACTERS naming the field (`findUnstorableText`'s path). */
export function unstorableTextError(field: string): AppError {
  const message = `'${field}' holds a NUL character or a lone surrogate, which cannot be stored`;
  return AppError.badRequest(CommonErrorCodes.InvalidCharacters, message, [{ field, message }]);
}

/**
 * ValidationPipe that first refuses a body nested past MAX_BODY_DEPTH (400 BODY_TOO_DEEP) or holding a
 * string no database stores (400 INVALID_CHARACTERS naming the field), for every service's validated
 * routes, and keeps user data under keys named like Object.prototype members. One walk over the body for
 * all three; the path is only looked for when a bad string was found, the copy only made when such a key
 * is there. Hot routes (served before Fastify's router) do not come through here.
 */
class DepthBoundedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type !== 'body') return super.transform(value, metadata);
    const scanned = scanBodySliced(value, MAX_BODY_DEPTH);
    const found = typeof scanned === 'number' ? scanned : await scanned;
    if (found & DEEP)
      throw AppError.badRequest(
        CommonErrorCodes.BodyTooDeep,
        `Request body nests arrays or objects more than ${MAX_BODY_DEPTH} levels deep`,
      );
    if (found & UNSTORABLE) throw unstorableTextError(findUnstorableText(value) ?? 'body');
    if (!(found & INHERITED_KEY)) return this.transformOpaque(value, metadata);
    // Nest deletes `constructor` keys in place and class-transformer drops keys named like
    // Object.prototype members: both work on a copy, and the untyped properties come back as sent
    return withUntypedValues(await super.transform(structuredClone(value), metadata), value);
  }

  /**
   * The DTO's open-JSON properties (`OpaqueJson`: a rule set document, a table's rows) are validated as
   * stand-ins of the same shape (`{}` for each object) and handed over as sent: class-transformer does not
   * copy every nested value of a 10,000-rule document on the event loop. Everything else as before.
   */
  private async transformOpaque(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const opaque = opaqueJsonProperties(metadata.metatype);
    if (!opaque || !isPlainJsonObject(value)) return super.transform(value, metadata);
    const standIn: Record<string, unknown> = { ...value };
    const sent = new Map<string, unknown>();
    for (const [key, { kind, minItems = 0, maxItems = Infinity }] of opaque) {
      const original = value[key];
      if (kind === 'object' && isPlainJsonObject(original)) standIn[key] = {};
      else if (kind === 'objects' && Array.isArray(original)) {
        // an array within its bounds whose every item is an object is valid as it stands: class-validator
        // sees as few stand-ins as its size rules need (validating 10,000 `{}` took it ~50 ms of the loop)
        const fine =
          original.length >= minItems && original.length <= maxItems && original.every(isPlainJsonObject);
        standIn[key] = fine
          ? new Array(Math.min(original.length, Math.max(1, minItems))).fill(EMPTY)
          : original.map((item) => (isPlainJsonObject(item) ? {} : item));
      } else if (kind === 'array' && Array.isArray(original)) standIn[key] = [];
      else continue;
      sent.set(key, original);
    }
    if (sent.size === 0) return super.transform(value, metadata);
    const entity = (await super.transform(standIn, metadata)) as Record<string, unknown>;
    for (const [key, original] of sent) if (Object.hasOwn(entity, key)) entity[key] = original;
    // a large body's text stays at hand for whoever sends the DTO to a worker thread
    sameJsonText(value, entity);
    return entity;
  }
}

/** The stand-in of an object item of a valid open-JSON array (never written to: the original replaces it). */
const EMPTY = Object.freeze({});

/** A JSON object (not an array, not a class instance). */
function isPlainJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && isPlainObject(value);
}

/**
 * Whether `value` holds what a prototype-pollution payload needs: an own `__proto__` key, or a
 * `constructor` / `prototype` key whose value is an object (a merge walking `constructor.prototype`
 * reaches Object.prototype). A `constructor` key holding text, a number, a boolean or null is data.
 */
function hasPoisonKeys(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const record = node as Record<string, unknown>;
    if (!Array.isArray(node)) {
      if (Object.hasOwn(record, '__proto__')) return true;
      for (const key of ['constructor', 'prototype'])
        if (Object.hasOwn(record, key) && record[key] !== null && typeof record[key] === 'object')
          return true;
    }
    for (const child of Array.isArray(node) ? node : Object.values(record))
      if (child !== null && typeof child === 'object') stack.push(child);
  }
  return false;
}

/** An object made by `{}` / JSON (of any realm) or without a prototype: no class instance, no Date. */
function isPlainObject(node: object): boolean {
  const proto = Object.getPrototypeOf(node);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** Whether every object in `value` is a plain object or array (no class instance: no nested DTO, no Date). */
function isPlainTree(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!Array.isArray(node) && !isPlainObject(node)) return false;
    for (const child of Array.isArray(node) ? node : Object.values(node))
      if (child !== null && typeof child === 'object') stack.push(child);
  }
  return true;
}

/**
 * class-transformer rebuilds the plain objects under a DTO's untyped properties (`unknown[]`,
 * `Record<string, unknown>`) and drops their keys named like Object.prototype members (`constructor`,
 * `toString`, `hasOwnProperty`): user data, such as a table's column names, would be lost silently. The
 * pipe hands such a property over as it arrived (it was validated all the same), in the body's DTO and in
 * every nested DTO (`rows[i].outputs`); a nested DTO stays as transformed, and a property the whitelist
 * removed stays removed.
 */
function withUntypedValues(entity: unknown, sent: unknown, depth = 0): unknown {
  if (entity === sent || entity === null || typeof entity !== 'object') return entity;
  if (sent === null || typeof sent !== 'object' || depth > MAX_BODY_DEPTH) return entity;
  if (Array.isArray(entity)) {
    // an array of nested DTOs: the same, element by element
    if (Array.isArray(sent)) entity.forEach((element, i) => withUntypedValues(element, sent[i], depth + 1));
    return entity;
  }
  if (Array.isArray(sent)) return entity;
  const target = entity as Record<string, unknown>;
  for (const key of Object.keys(sent)) {
    const original = (sent as Record<string, unknown>)[key];
    if (original === null || typeof original !== 'object' || !Object.hasOwn(target, key)) continue;
    if (isPlainTree(target[key])) {
      if (!hasPoisonKeys(original)) target[key] = original;
    } else withUntypedValues(target[key], original, depth + 1); // a nested DTO: its own untyped properties
  }
  return entity;
}

/** The DTO pipe every app installs: depth bound, whitelist, transform, and the platform's validation error. */
export function createValidationPipe(): ValidationPipe {
  return new DepthBoundedValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    stopAtFirstError: false,
    exceptionFactory: (errors) => validationError(errors),
  });
}
