/**
 * Breaking changes for REST clients between two OpenAPI 3.x documents of one service: the baseline (the
 * contract as of the last release) and the current one. Pure: documents in, a list out; `$ref`s to the
 * document's own components are followed, `allOf` is merged.
 *
 * The rules (docs/openapi/README.md explains them to people; the unit tests beside this file pin each one):
 *
 * Operations, matched by method and path template (a renamed path parameter is the same URL):
 * - the operation was removed;
 * - its `operationId` changed (generated clients name their functions after it);
 * - it was public (empty `security`) and now requires authentication.
 *
 * Requests (what a client already sends must still be accepted, with the same meaning):
 * - a parameter or body property added as required, or an optional one that became required;
 * - a parameter, the body or a body property removed (the server now ignores it: its effect is lost
 *   silently, and a generated client that sets it stops compiling); a body media type removed;
 * - a narrower type (`number` → `integer`, a type replaced, `null` no longer accepted);
 * - an enum where there was none, or enum values removed;
 * - a tighter constraint: `maxLength`/`maxItems`/`maxProperties`/`maximum` added or lowered,
 *   `minLength`/`minItems`/`minProperties`/`minimum` added or raised, an exclusive bound where the same
 *   bound was inclusive, `pattern`, `format` or `multipleOf` added or changed, `uniqueItems` added,
 *   additional properties no longer accepted;
 * - a `oneOf`/`anyOf` alternative removed (alternatives are compared whole, not paired).
 *
 * Responses (what a client already reads must still come, in the shape it knows), for success (2xx)
 * statuses only: error bodies are families whose `code` enums grow with every feature, and a client
 * already has to handle an error it does not know:
 * - a success status removed (200 → 201 included), a success media type removed;
 * - a property removed, or one that was required and may now be absent;
 * - a wider or other type (`integer` → `number`, a type replaced, `null` now possible);
 * - enum values added, or an enum dropped (clients switch over the values they know);
 * - a `format` removed or changed (clients parse dates, uuids, …);
 * - a `oneOf`/`anyOf` alternative added.
 *
 * Not breaking: anything added that is optional in a request or additional in a response, looser request
 * constraints, narrower response types, descriptions, examples, tags, summaries, new operations, new error
 * statuses, and renamed component schemas (the structure is compared, not the names).
 */

/** One breaking change of an operation. */
export interface BreakingChange {
  /** `METHOD /path` as the current document writes it (the baseline's when the operation was removed). */
  operation: string;
  /** What changed, always in the same words for the same change (the record of changes matches on it). */
  change: string;
}

type Json = Record<string, any>;
type Direction = 'request' | 'response';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const MAX_DEPTH = 64;
/** Numeric formats and the wider one each fits in (accepting the wider one breaks no request). */
const WIDER_FORMAT: Record<string, string> = { int32: 'int64', float: 'double' };
/** Keywords that describe a schema for people and change nothing about the values it accepts. */
const ANNOTATIONS = new Set([
  'description',
  'title',
  'example',
  'examples',
  'deprecated',
  'externalDocs',
  'xml',
  'readOnly',
  'writeOnly',
  'discriminator',
]);

interface OperationEntry {
  method: string;
  path: string;
  operation: Json;
  pathItem: Json;
}

/** The breaking changes from `baseline` to `current`, in the baseline's operation order. */
export function findBreakingChanges(baseline: Json, current: Json): BreakingChange[] {
  const changes: BreakingChange[] = [];
  const currentOperations = operationsOf(current);
  for (const [key, before] of operationsOf(baseline)) {
    const after = currentOperations.get(key);
    const name = `${before.method.toUpperCase()} ${(after ?? before).path}`;
    const report = (change: string) => changes.push({ operation: name, change });
    if (!after) {
      report('operation removed');
      continue;
    }
    compareOperations({ document: baseline, ...before }, { document: current, ...after }, report);
  }
  return changes;
}

function operationsOf(document: Json): Map<string, OperationEntry> {
  const operations = new Map<string, OperationEntry>();
  for (const [path, rawItem] of Object.entries<Json>(document.paths ?? {})) {
    const pathItem = resolve(document, rawItem);
    for (const method of METHODS) {
      if (!pathItem[method]) continue;
      operations.set(`${method} ${normalizePath(path)}`, {
        method,
        path,
        operation: pathItem[method],
        pathItem,
      });
    }
  }
  return operations;
}

/** `/tables/{id}` and `/tables/{tableId}` are the same URL for a client. */
function normalizePath(path: string): string {
  return path.replace(/\{[^}]+\}/g, '{}');
}

type Side = OperationEntry & { document: Json };

function compareOperations(before: Side, after: Side, report: (change: string) => void): void {
  const idBefore = before.operation.operationId;
  const idAfter = after.operation.operationId;
  if (typeof idBefore === 'string' && idBefore !== idAfter) {
    report(`operationId changed from '${idBefore}' to '${idAfter ?? '(none)'}'`);
  }
  if (isPublic(before) && !isPublic(after)) report('now requires authentication');
  compareParameters(before, after, report);
  compareRequestBodies(before, after, report);
  compareResponses(before, after, report);
}

function isPublic(side: Side): boolean {
  const security: Json[] | undefined = side.operation.security ?? side.document.security;
  return !security || security.length === 0 || security.some((r) => Object.keys(r).length === 0);
}

interface Parameter {
  key: string;
  label: string;
  required: boolean;
  schema: Json | undefined;
}

function parametersOf(side: Side): Map<string, Parameter> {
  const byLocation = new Map<string, Json>();
  for (const raw of [...(side.pathItem.parameters ?? []), ...(side.operation.parameters ?? [])]) {
    const parameter = resolve(side.document, raw);
    byLocation.set(`${parameter.in}:${parameter.name}`, parameter);
  }
  // path parameters are matched by their place in the template: renaming one changes no URL
  const pathNames = [...side.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const parameters = new Map<string, Parameter>();
  for (const parameter of byLocation.values()) {
    const name = String(parameter.name);
    const location = String(parameter.in);
    const place = pathNames.indexOf(name);
    const key =
      location === 'path' && place >= 0
        ? `path:#${place}`
        : `${location}:${location === 'header' ? name.toLowerCase() : name}`;
    parameters.set(key, {
      key,
      label: `${location} parameter '${name}'`,
      required: location === 'path' || parameter.required === true,
      schema: parameter.schema ?? firstSchemaOf(parameter.content),
    });
  }
  return parameters;
}

function firstSchemaOf(content: Json | undefined): Json | undefined {
  const first = Object.values<Json>(content ?? {})[0];
  return first?.schema;
}

function compareParameters(before: Side, after: Side, report: (change: string) => void): void {
  const previous = parametersOf(before);
  const next = parametersOf(after);
  for (const [key, parameter] of previous) {
    const now = next.get(key);
    if (!now) {
      report(`${parameter.label} removed`);
      continue;
    }
    if (!parameter.required && now.required) report(`${now.label} became required`);
    compareSchemas(
      { document: before.document, schema: parameter.schema },
      { document: after.document, schema: now.schema },
      'request',
      now.label,
      report,
    );
  }
  for (const [key, parameter] of next) {
    if (!previous.has(key) && parameter.required) report(`${parameter.label} added as required`);
  }
}

function bodyLabel(where: string, mediaType: string): string {
  return mediaType === 'application/json' ? where : `${where} (${mediaType})`;
}

function compareRequestBodies(before: Side, after: Side, report: (change: string) => void): void {
  const previous = before.operation.requestBody && resolve(before.document, before.operation.requestBody);
  const next = after.operation.requestBody && resolve(after.document, after.operation.requestBody);
  if (!previous) {
    if (next?.required) report('request body added as required');
    return;
  }
  if (!next) {
    report('request body removed');
    return;
  }
  if (!previous.required && next.required) report('request body became required');
  for (const [mediaType, media] of Object.entries<Json>(previous.content ?? {})) {
    const now = next.content?.[mediaType];
    if (!now) {
      report(`request body media type '${mediaType}' removed`);
      continue;
    }
    compareSchemas(
      { document: before.document, schema: media.schema },
      { document: after.document, schema: now.schema },
      'request',
      bodyLabel('request body', mediaType),
      report,
    );
  }
}

function compareResponses(before: Side, after: Side, report: (change: string) => void): void {
  for (const [status, raw] of Object.entries<Json>(before.operation.responses ?? {})) {
    if (!/^2(\d\d|XX)$/i.test(status)) continue;
    const rawNow = after.operation.responses?.[status];
    if (!rawNow) {
      report(`response ${status} removed`);
      continue;
    }
    const previous = resolve(before.document, raw);
    const next = resolve(after.document, rawNow);
    for (const [mediaType, media] of Object.entries<Json>(previous.content ?? {})) {
      const now = next.content?.[mediaType];
      if (!now) {
        report(`response ${status} media type '${mediaType}' removed`);
        continue;
      }
      compareSchemas(
        { document: before.document, schema: media.schema },
        { document: after.document, schema: now.schema },
        'response',
        bodyLabel(`response ${status} body`, mediaType),
        report,
      );
    }
  }
}

interface SchemaSide {
  document: Json;
  schema: Json | undefined;
}

function compareSchemas(
  before: SchemaSide,
  after: SchemaSide,
  direction: Direction,
  where: string,
  report: (change: string) => void,
): void {
  // a media type or parameter without a schema takes any value
  new SchemaComparison(before.document, after.document, direction, where, report).compare(
    before.schema ?? {},
    after.schema ?? {},
    '',
    [],
    0,
  );
}

/** Walks two schemas side by side (one request or response location), reporting in `where`'s words. */
class SchemaComparison {
  constructor(
    private readonly documentBefore: Json,
    private readonly documentAfter: Json,
    private readonly direction: Direction,
    private readonly where: string,
    private readonly report: (change: string) => void,
  ) {}

  private say(path: string, what: string): void {
    this.report(`${this.where}: ${path ? `property '${path}' ` : ''}${what}`);
  }

  compare(
    rawBefore: Json | undefined,
    rawAfter: Json | undefined,
    path: string,
    stack: [Json, Json][],
    depth: number,
  ): void {
    if (rawBefore === undefined || rawAfter === undefined || depth > MAX_DEPTH) return;
    const before = flatten(this.documentBefore, rawBefore);
    const after = flatten(this.documentAfter, rawAfter);
    // a recursive schema: this pair is already being compared further up
    if (stack.some(([b, a]) => b === before.source && a === after.source)) return;
    const inner: [Json, Json][] = [...stack, [before.source, after.source]];
    const b = before.schema;
    const a = after.schema;

    if (alternativesOf(b) || alternativesOf(a)) {
      this.compareAlternatives(b, a, path);
      return;
    }
    if (!this.compareTypes(b, a, path)) return;
    this.compareEnums(b, a, path);
    this.compareFormat(b, a, path);
    if (this.direction === 'request') this.compareConstraints(b, a, path);
    this.compareProperties(b, a, path, inner, depth);
    if (b.items && a.items) this.compare(b.items, a.items, `${path}[]`, inner, depth + 1);
    this.compareAdditionalProperties(b, a, path, inner, depth);
  }

  /** False when the types share nothing, so comparing what is inside them means nothing. */
  private compareTypes(b: Json, a: Json, path: string): boolean {
    const before = typesOf(b);
    const after = typesOf(a);
    const [accepted, offered] = this.direction === 'request' ? [after, before] : [before, after];
    // in a request every type the client may send must still be accepted; in a response every type the
    // server may send must be one the client already knows
    const uncovered = [...offered].filter((t) => !covers(accepted, t));
    if (uncovered.length === 0) return true;
    if (uncovered.length === 1 && uncovered[0] === 'null') {
      this.say(path, this.direction === 'request' ? 'no longer accepts null' : 'became nullable');
      return true;
    }
    const verb =
      this.direction === 'request'
        ? [...after].every((t) => covers(before, t))
          ? 'narrowed'
          : 'changed'
        : [...before].every((t) => covers(after, t))
          ? 'widened'
          : 'changed';
    this.say(path, `type ${verb} from ${formatTypes(before)} to ${formatTypes(after)}`);
    return [...before].some((t) => covers(after, t)) || [...after].some((t) => covers(before, t));
  }

  private compareEnums(b: Json, a: Json, path: string): void {
    const before: unknown[] | undefined = Array.isArray(b.enum) ? b.enum : undefined;
    const after: unknown[] | undefined = Array.isArray(a.enum) ? a.enum : undefined;
    const has = (values: unknown[], value: unknown) =>
      values.some((v) => JSON.stringify(v) === JSON.stringify(value));
    if (this.direction === 'request') {
      if (!before && after) this.say(path, `restricted to the enum ${JSON.stringify(after)}`);
      if (before && after) {
        for (const value of before)
          if (!has(after, value)) this.say(path, `enum value ${JSON.stringify(value)} removed`);
      }
    } else {
      if (before && !after) this.say(path, 'no longer restricted to an enum');
      if (before && after) {
        for (const value of after)
          if (!has(before, value)) this.say(path, `enum value ${JSON.stringify(value)} added`);
      }
    }
  }

  private compareFormat(b: Json, a: Json, path: string): void {
    if (b.format === a.format) return;
    const widened = b.format !== undefined && WIDER_FORMAT[b.format] === a.format;
    if (this.direction === 'request' && a.format !== undefined && !widened) {
      this.say(
        path,
        b.format === undefined
          ? `format '${a.format}' added`
          : `format changed from '${b.format}' to '${a.format}'`,
      );
    }
    if (this.direction === 'response' && b.format !== undefined) {
      this.say(
        path,
        a.format === undefined
          ? `format '${b.format}' removed`
          : `format changed from '${b.format}' to '${a.format}'`,
      );
    }
  }

  /** Request side: what the server accepts may only grow. */
  private compareConstraints(b: Json, a: Json, path: string): void {
    for (const keyword of ['maxLength', 'maxItems', 'maxProperties'] as const) {
      if (typeof a[keyword] !== 'number') continue;
      if (typeof b[keyword] !== 'number') this.say(path, `${keyword} ${a[keyword]} added`);
      else if (a[keyword] < b[keyword])
        this.say(path, `${keyword} lowered from ${b[keyword]} to ${a[keyword]}`);
    }
    for (const keyword of ['minLength', 'minItems', 'minProperties'] as const) {
      if (typeof a[keyword] !== 'number' || a[keyword] <= (b[keyword] ?? 0)) continue;
      if (typeof b[keyword] !== 'number') this.say(path, `${keyword} ${a[keyword]} added`);
      else this.say(path, `${keyword} raised from ${b[keyword]} to ${a[keyword]}`);
    }
    this.compareBound(boundOf(b, 'maximum'), boundOf(a, 'maximum'), 'maximum', path);
    this.compareBound(boundOf(b, 'minimum'), boundOf(a, 'minimum'), 'minimum', path);
    for (const keyword of ['pattern', 'multipleOf'] as const) {
      if (a[keyword] === undefined || a[keyword] === b[keyword]) continue;
      this.say(
        path,
        b[keyword] === undefined
          ? `${keyword} ${JSON.stringify(a[keyword])} added`
          : `${keyword} changed from ${JSON.stringify(b[keyword])} to ${JSON.stringify(a[keyword])}`,
      );
    }
    if (a.uniqueItems === true && b.uniqueItems !== true) this.say(path, 'uniqueItems added');
  }

  private compareBound(before: Bound | undefined, after: Bound | undefined, keyword: string, path: string) {
    if (!after) return;
    if (!before) {
      this.say(path, `${keyword} ${formatBound(after)} added`);
      return;
    }
    const tighter = keyword === 'maximum' ? after.value < before.value : after.value > before.value;
    const sameButExclusive = after.value === before.value && after.exclusive && !before.exclusive;
    if (tighter || sameButExclusive) {
      this.say(
        path,
        `${keyword} ${keyword === 'maximum' ? 'lowered' : 'raised'} from ${formatBound(before)} to ${formatBound(after)}`,
      );
    }
  }

  private compareProperties(b: Json, a: Json, path: string, stack: [Json, Json][], depth: number): void {
    const propertiesBefore: Json = b.properties ?? {};
    const propertiesAfter: Json = a.properties ?? {};
    const requiredBefore = new Set<string>(Array.isArray(b.required) ? b.required : []);
    const requiredAfter = new Set<string>(Array.isArray(a.required) ? a.required : []);
    const names = new Set([
      ...Object.keys(propertiesBefore),
      ...requiredBefore,
      ...Object.keys(propertiesAfter),
      ...requiredAfter,
    ]);
    const hidden = this.direction === 'request' ? 'readOnly' : 'writeOnly';
    for (const name of names) {
      const child = path ? `${path}.${name}` : name;
      const before = propertiesBefore[name];
      const after = propertiesAfter[name];
      const existedBefore = before !== undefined || requiredBefore.has(name);
      const existsAfter = after !== undefined || requiredAfter.has(name);
      if (before && flatten(this.documentBefore, before).schema[hidden] === true) continue;
      if (this.direction === 'request') {
        if (!existedBefore && requiredAfter.has(name)) this.say(child, 'added as required');
        else if (existedBefore && !existsAfter) this.say(child, 'removed');
        else if (existedBefore && !requiredBefore.has(name) && requiredAfter.has(name))
          this.say(child, 'became required');
      } else {
        if (existedBefore && !existsAfter) this.say(child, 'removed');
        else if (requiredBefore.has(name) && !requiredAfter.has(name)) this.say(child, 'no longer required');
      }
      if (before && after) this.compare(before, after, child, stack, depth + 1);
    }
  }

  private compareAdditionalProperties(
    b: Json,
    a: Json,
    path: string,
    stack: [Json, Json][],
    depth: number,
  ): void {
    const before = b.additionalProperties;
    const after = a.additionalProperties;
    if (this.direction === 'request' && before !== false && after === false && typesOf(b).has('object')) {
      this.say(path, 'no longer accepts additional properties');
    }
    if (isSchema(before) && isSchema(after)) this.compare(before, after, `${path}{}`, stack, depth + 1);
  }

  private compareAlternatives(b: Json, a: Json, path: string): void {
    const before = (alternativesOf(b) ?? [b]).map((s) => this.alternative(this.documentBefore, s));
    const after = (alternativesOf(a) ?? [a]).map((s) => this.alternative(this.documentAfter, s));
    const [from, to, verb] =
      this.direction === 'request' ? [before, after, 'removed'] : [after, before, 'added'];
    // a side that takes any value (`{}`) covers every alternative of the other
    if (to.some((other) => other.canonical === '{}')) return;
    for (const alternative of from) {
      if (!to.some((other) => other.canonical === alternative.canonical)) {
        this.say(path, `alternative ${alternative.name} ${verb}`);
      }
    }
  }

  private alternative(document: Json, schema: Json): { name: string; canonical: string } {
    const ref = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : undefined;
    const flat = flatten(document, schema).schema;
    return {
      name: ref ? `'${ref}'` : formatTypes(typesOf(flat)),
      canonical: canonicalOf(document, schema, []),
    };
  }
}

interface Bound {
  value: number;
  exclusive: boolean;
}

/** OpenAPI 3.0 (`exclusiveMaximum: true` beside `maximum`) and 3.1 (`exclusiveMaximum: <number>`). */
function boundOf(schema: Json, keyword: 'maximum' | 'minimum'): Bound | undefined {
  const exclusiveKeyword = keyword === 'maximum' ? 'exclusiveMaximum' : 'exclusiveMinimum';
  if (typeof schema[exclusiveKeyword] === 'number')
    return { value: schema[exclusiveKeyword], exclusive: true };
  if (typeof schema[keyword] !== 'number') return undefined;
  return { value: schema[keyword], exclusive: schema[exclusiveKeyword] === true };
}

function formatBound(bound: Bound): string {
  return bound.exclusive ? `${bound.value} (exclusive)` : String(bound.value);
}

function isSchema(value: unknown): value is Json {
  return typeof value === 'object' && value !== null;
}

/** The schema's types; `any` when it names none. `nullable` (3.0) and `'null'` (3.1) both give `null`. */
function typesOf(schema: Json): Set<string> {
  const declared: string[] = Array.isArray(schema.type)
    ? schema.type
    : typeof schema.type === 'string'
      ? [schema.type]
      : ['any'];
  const types = new Set(declared);
  if (schema.nullable === true && !types.has('any')) types.add('null');
  return types;
}

/** Whether a value of type `type` is among `types` (`integer` values are `number`s). */
function covers(types: Set<string>, type: string): boolean {
  return types.has('any') || types.has(type) || (type === 'integer' && types.has('number'));
}

function formatTypes(types: Set<string>): string {
  return [...types].join('|');
}

function alternativesOf(schema: Json): Json[] | undefined {
  const alternatives = schema.oneOf ?? schema.anyOf;
  return Array.isArray(alternatives) ? alternatives : undefined;
}

/** Follows local `$ref`s (`#/components/...`) until an object without one. */
function resolve(document: Json, value: Json): Json {
  let current = value;
  for (let hops = 0; isSchema(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 32) throw new Error(`$ref cycle at ${value.$ref}`);
    const ref: string = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local $refs are supported: ${ref}`);
    const target = ref
      .slice(2)
      .split('/')
      .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<any>((node, segment) => node?.[segment], document);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    current = target;
  }
  return current;
}

/**
 * The schema with its `$ref` followed and its `allOf` merged into one (properties and required names
 * united, the first type kept), and the object it came from (to recognise recursion).
 */
function flatten(document: Json, raw: Json): { schema: Json; source: Json } {
  const source = resolve(document, raw);
  const { allOf, ...rest } = source;
  if (!Array.isArray(allOf)) {
    // sibling keywords of a $ref (nullable beside allOf, description) stay with the outer schema
    return { schema: source, source };
  }
  let merged: Json = { ...rest };
  for (const part of allOf) merged = mergeSchemas(merged, flatten(document, part).schema);
  return { schema: merged, source };
}

function mergeSchemas(into: Json, part: Json): Json {
  const merged: Json = { ...part, ...into };
  if (into.properties || part.properties) {
    merged.properties = { ...part.properties, ...into.properties };
    for (const name of Object.keys(part.properties ?? {})) {
      if (into.properties?.[name])
        merged.properties[name] = { allOf: [into.properties[name], part.properties[name]] };
    }
  }
  if (into.required || part.required) {
    merged.required = [...new Set([...(into.required ?? []), ...(part.required ?? [])])];
  }
  if (into.type === undefined && part.type !== undefined) merged.type = part.type;
  return merged;
}

/** Keywords whose value maps names to schemas (the names are data, not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs']);
/** Keywords whose value is a set (order means nothing). */
const SETS = new Set(['required', 'enum', 'type']);

/** A schema as text without what only describes it, with `$ref`s inlined (recursion cut), keys sorted. */
function canonicalOf(document: Json, schema: unknown, stack: Json[]): string {
  if (Array.isArray(schema)) return `[${schema.map((s) => canonicalOf(document, s, stack)).join(',')}]`;
  if (!isSchema(schema)) return JSON.stringify(schema);
  const target = resolve(document, schema);
  if (stack.includes(target)) return '"(recursive)"';
  const inner = [...stack, target];
  const entries = Object.keys(target)
    .filter((key) => !ANNOTATIONS.has(key) && !key.startsWith('x-'))
    .sort()
    .map((key) => {
      const value = target[key];
      let text: string;
      if (SCHEMA_MAPS.has(key) && isSchema(value)) {
        text = `{${Object.keys(value)
          .sort()
          .map((name) => `${JSON.stringify(name)}:${canonicalOf(document, value[name], inner)}`)
          .join(',')}}`;
      } else if (SETS.has(key) && Array.isArray(value)) {
        text = `[${value
          .map((v) => JSON.stringify(v))
          .sort()
          .join(',')}]`;
      } else {
        text = canonicalOf(document, value, inner);
      }
      return `${JSON.stringify(key)}:${text}`;
    });
  return `{${entries.join(',')}}`;
}
