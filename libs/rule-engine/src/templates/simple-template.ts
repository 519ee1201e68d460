/**
 * Fast path for the most common template shape: text with `{{ dotted.path }}` outputs and nothing
 * else (no tags, no filters, no whitespace control). liquidjs renders through generators (≈ 20 µs
 * for a four-output sentence); this renders by string concatenation (≈ 0.2 µs) with liquidjs's own
 * semantics for plain JSON data: own properties only, `[n]` indexes arrays, nil renders as '', arrays
 * render their elements joined, other values through `String`. Anything this path does not mirror
 * exactly (an object value, a non-JSON value on the path) makes `render` return `undefined`, and the
 * caller renders that scope with liquidjs instead.
 */

type PathKey = string | number;

/** A compiled simple template: `render(scope)` → the text, or undefined to ask liquidjs. */
export interface SimpleTemplate {
  render(scope: Record<string, unknown>): string | undefined;
}

const OUTPUT = /\{\{([\s\S]*?)\}\}/g;
const SIMPLE_PATH = /^\s*([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d{1,9}\])*)\s*$/;
const SEGMENT = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g;
/** Liquid literals (not scope lookups) and keys liquidjs treats specially. */
const LITERALS = new Set(['nil', 'null', 'true', 'false', 'empty', 'blank']);
const SPECIAL_KEYS = new Set(['size', 'first', 'last']);

const hasOwn = Object.prototype.hasOwnProperty;
const OBJECT_PROTO = Object.prototype;

/** Marks a value this path cannot render exactly like liquidjs. */
const UNSUPPORTED = Symbol('unsupported');

/** Returns a fast renderer when the whole source is simple text + outputs, else null. */
export function compileSimpleTemplate(source: string): SimpleTemplate | null {
  if (source.includes('{%')) return null;
  const texts: string[] = [];
  const paths: PathKey[][] = [];
  let last = 0;
  for (const match of source.matchAll(OUTPUT)) {
    const text = source.slice(last, match.index);
    if (text.includes('{{')) return null;
    const path = parsePath(match[1]);
    if (!path) return null;
    texts.push(text);
    paths.push(path);
    last = match.index + match[0].length;
  }
  const tail = source.slice(last);
  if (tail.includes('{{')) return null;
  texts.push(tail);
  return new SimpleTemplateRenderer(texts, paths);
}

function parsePath(inner: string): PathKey[] | null {
  const m = SIMPLE_PATH.exec(inner);
  if (!m || LITERALS.has(m[1]) || SPECIAL_KEYS.has(m[1])) return null;
  const path: PathKey[] = [m[1]];
  for (const s of m[2].matchAll(SEGMENT)) {
    if (s[1] !== undefined) {
      if (SPECIAL_KEYS.has(s[1])) return null;
      path.push(s[1]);
    } else path.push(Number(s[2]));
  }
  return path;
}

class SimpleTemplateRenderer implements SimpleTemplate {
  constructor(
    private readonly texts: string[],
    private readonly paths: PathKey[][],
  ) {}

  render(scope: Record<string, unknown>): string | undefined {
    const texts = this.texts;
    const paths = this.paths;
    let out = texts[0];
    for (let i = 0; i < paths.length; i++) {
      const value = read(scope, paths[i]);
      if (value === UNSUPPORTED) return undefined;
      const text = stringify(value);
      if (text === undefined) return undefined;
      out += text + texts[i + 1];
    }
    return out;
  }
}

function isPlainContainer(value: object): boolean {
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === OBJECT_PROTO || proto === null;
}

function read(scope: unknown, path: PathKey[]): unknown {
  let value = scope;
  for (let i = 0; i < path.length; i++) {
    if (value === null || value === undefined) return value;
    if (typeof value === 'object') {
      if (!isPlainContainer(value) || typeof (value as { toLiquid?: unknown }).toLiquid === 'function')
        return UNSUPPORTED;
    } else if (typeof value === 'function' || typeof value === 'symbol') return UNSUPPORTED;
    const key = path[i];
    value = hasOwn.call(value, key) ? (value as Record<PathKey, unknown>)[key] : undefined;
    if (typeof value === 'function') return UNSUPPORTED;
  }
  return value;
}

/** liquidjs's `stringify` for JSON values; undefined for values this path leaves to liquidjs. */
function stringify(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) {
    let out = '';
    for (const item of value) {
      const text = stringify(item);
      if (text === undefined) return undefined;
      out += text;
    }
    return out;
  }
  if (typeof value === 'object' || typeof value === 'function' || typeof value === 'symbol') return undefined;
  return String(value);
}
