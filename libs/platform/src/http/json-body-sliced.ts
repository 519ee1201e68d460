import { forbiddenJsonKey, InvalidJsonBodyError, parseJsonRequestBody } from './json-body';

/** Bodies from this many characters are parsed in slices (a 10,000-row table is ~1.4 MB, 100,000 ~15 MB). */
export const SLICED_BODY_CHARS = 256 * 1024;
/** Characters handed to one `JSON.parse` (well under a millisecond). */
const PIECE_CHARS = 64 * 1024;
/** A value this long inside a split container is split in turn rather than parsed in one piece. */
const SPLIT_CHARS = 8 * PIECE_CHARS;
/** Longest stretch (ms) the parse holds the event loop before handing it back. */
const SLICE_MS = 4;
/** Containers nested deeper than this are never split (their pieces are parsed whole). */
const MAX_SPLIT_DEPTH = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;
const BYTE_ORDER_MARK = 0xfeff;

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const invalid = (): never => {
  throw new InvalidJsonBodyError();
};

/** What each large request body was parsed from (its bytes, or its text), by its parsed value. */
const bodyTexts = new WeakMap<object, string | Uint8Array>();

/**
 * The JSON a large request body (from SLICED_BODY_CHARS) was parsed from, while its parsed value is
 * alive: its bytes as received (UTF-8) when the HTTP host gave them, else its text. Whoever hands the
 * body on (to a worker thread) sends that instead of writing the value out again. Only for the very
 * object the parse gave (parsing that JSON again gives an equal value): a copy, or a value the pipeline
 * rebuilt, has none unless `sameJsonText` passed it on. Bytes moved to another thread meanwhile (their
 * buffer detached) count as none.
 */
export function requestJson(value: unknown): string | Uint8Array | undefined {
  const json = typeof value === 'object' && value !== null ? bodyTexts.get(value) : undefined;
  return typeof json === 'string' || (json !== undefined && json.buffer.byteLength > 0) ? json : undefined;
}

/**
 * Gives `to` the JSON of `from` (`requestJson`) when it stands for the same JSON: an object with the
 * same defined properties, each the very same value, or (a small one the pipeline rebuilt, such as a
 * nested DTO) one that `JSON.stringify` writes alike. A DTO made from a large body, whose bulk (a table's
 * rows) is handed over as sent, so keeps the body's text; anything else keeps none.
 */
export function sameJsonText(from: unknown, to: unknown): void {
  const text = requestJson(from);
  if (text === undefined || typeof to !== 'object' || to === null || Array.isArray(to)) return;
  const a = from as Record<string, unknown>;
  const b = to as Record<string, unknown>;
  const defined = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== undefined);
  const keys = defined(a);
  if (keys.length !== defined(b).length) return;
  for (const key of keys) {
    if (!Object.hasOwn(b, key)) return;
    const x = a[key];
    const y = b[key];
    if (x === y) continue;
    if (typeof x !== 'object' || x === null || typeof y !== 'object' || y === null) return;
    if (Array.isArray(x) && x.length > SAME_TEXT_ITEMS) return;
    if (JSON.stringify(x) !== JSON.stringify(y)) return;
  }
  bodyTexts.set(to, text);
}

/** Longest rebuilt array `sameJsonText` compares by its text (a table's columns, not its rows). */
const SAME_TEXT_ITEMS = 1000;

/**
 * `parseJsonRequestBody` for a large body, in slices of the event loop: the document is cut along its
 * outer arrays and objects into pieces of about PIECE_CHARS, each parsed by `JSON.parse` (through
 * `parseJsonRequestBody`, so each piece is checked for prototype poisoning alike), with the event loop
 * handed back every SLICE_MS. The same value, the same errors as the one-go parse; parsing a 15 MB table
 * (100,000 rows) holds no other request for more than a few milliseconds. Small bodies parse in one go.
 * `bytes`: the body as received, which `text` was decoded from (kept for `requestJson`).
 */
export async function parseJsonRequestBodySliced(text: string, bytes?: Uint8Array): Promise<unknown> {
  if (text.length < SLICED_BODY_CHARS) return parseJsonRequestBody(text);
  const value = await parseSliced(text, false);
  if (typeof value === 'object' && value !== null) bodyTexts.set(value, bytes ?? text);
  return value;
}

/**
 * JSON the service wrote itself (a stored table definition read back), parsed in the same slices, every key
 * kept as an own property as `JSON.parse` keeps it — `__proto__` included: a key a file import accepted (a
 * column named `__proto__`) must read back as stored, never be refused like a request body's.
 */
export async function parseStoredJsonSliced(text: string): Promise<unknown> {
  if (text.length < SLICED_BODY_CHARS) {
    try {
      return JSON.parse(text);
    } catch {
      return invalid();
    }
  }
  return parseSliced(text, true);
}

/**
 * `parseJsonRequestBodySliced` of a body as received (UTF-8 bytes): the document is cut by its bytes (every
 * character JSON's structure uses is ASCII, and no byte of a multi-byte character is) and only each piece
 * is decoded, so the body's text is never made in one piece (decoding 15 MB held the loop 17–23 ms at
 * load 7). The same value and the same errors as decoding first: pieces are cut at ASCII characters,
 * where no multi-byte sequence, valid or not, can straddle them. The bytes are kept for `requestJson`.
 */
export async function parseJsonRequestBytesSliced(bytes: Uint8Array): Promise<unknown> {
  if (bytes.length < SLICED_BODY_CHARS) return parseJsonRequestBody(decode(bytes, 0, bytes.length));
  const value = await parseSliced(new Utf8Text(bytes), false);
  if (typeof value === 'object' && value !== null) bodyTexts.set(value, bytes);
  return value;
}

const decode = (bytes: Uint8Array, from: number, to: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', from, to);

/** What `SlicedJsonParser` reads of its text: a string, or UTF-8 bytes read as one (`Utf8Text`). */
interface JsonText {
  readonly length: number;
  charCodeAt(i: number): number;
  /** the index of the next quote from `from` (only `"` is looked for) */
  indexOf(quote: '"', from: number): number;
  slice(from: number, to: number): string;
}

/**
 * UTF-8 bytes read as a text by byte offsets: a code below 0x80 is the ASCII character, any byte of a
 * multi-byte character reads as itself (≥ 0x80, never one of JSON's structural characters); `slice`
 * decodes just that range.
 */
class Utf8Text implements JsonText {
  readonly length: number;
  private readonly buffer: Buffer;
  constructor(bytes: Uint8Array) {
    this.buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.length;
  }
  charCodeAt(i: number): number {
    return i >= 0 && i < this.length ? this.buffer[i] : NaN;
  }
  indexOf(_quote: '"', from: number): number {
    return this.buffer.indexOf(QUOTE, from);
  }
  slice(from: number, to: number): string {
    return this.buffer.toString('utf8', from, to);
  }
}

/** The UTF-8 byte order mark, as `Utf8Text` reads it. */
const UTF8_BOM = [0xef, 0xbb, 0xbf];

/**
 * `parseStoredJsonSliced` of JSON the service wrote, read back as UTF-8 bytes in parts (a stored table
 * version read part by part): the parts are gathered into one buffer a few at a time and parsed from its
 * bytes like a request body (`parseJsonRequestBytesSliced`), so neither the read nor the parse makes the
 * whole text at once. Every key is kept as an own property, as `JSON.parse` keeps it.
 */
export async function parseStoredJsonBytesSliced(parts: readonly Uint8Array[]): Promise<unknown> {
  let total = 0;
  for (const part of parts) total += part.byteLength;
  if (total < SLICED_BODY_CHARS) {
    try {
      return JSON.parse(Buffer.concat(parts, total).toString('utf8'));
    } catch {
      return invalid();
    }
  }
  const bytes = Buffer.allocUnsafe(total);
  let offset = 0;
  let sliceEnd = performance.now() + SLICE_MS;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
    if (performance.now() < sliceEnd) continue;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceEnd = performance.now() + SLICE_MS;
  }
  return parseSliced(new Utf8Text(bytes), true);
}

async function parseSliced(text: JsonText, keepProtoKeys: boolean): Promise<unknown> {
  const start =
    text instanceof Utf8Text
      ? UTF8_BOM.every((b, k) => text.charCodeAt(k) === b)
        ? 3
        : 0
      : text.charCodeAt(0) === BYTE_ORDER_MARK
        ? 1
        : 0;
  const parser = new SlicedJsonParser(text, keepProtoKeys);
  const i = parser.skipSpace(start);
  const c = text.charCodeAt(i);
  if (c !== OPEN_BRACKET && c !== OPEN_BRACE) return parser.parse(text.slice(0, text.length));
  const { value, end } = await parser.container(i, 0);
  if (parser.skipSpace(end) !== text.length) invalid();
  return value;
}

/** Sets an own enumerable property, `__proto__` as a key like any other (never the prototype). */
function setMember(members: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(members, key, { value, enumerable: true, writable: true, configurable: true });
  else members[key] = value;
}

class SlicedJsonParser {
  private sliceEnd = performance.now() + SLICE_MS;

  /** `keepProtoKeys`: trusted text (`parseStoredJsonSliced`), else a request body's checks apply. */
  constructor(
    private readonly text: JsonText,
    private readonly keepProtoKeys: boolean,
  ) {}

  /** One piece: a request body's parse (prototype poisoning refused), or `JSON.parse` for trusted text. */
  parse(piece: string): unknown {
    if (!this.keepProtoKeys) return parseJsonRequestBody(piece);
    try {
      return JSON.parse(piece);
    } catch {
      return invalid();
    }
  }

  skipSpace(i: number): number {
    const text = this.text;
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
    return i;
  }

  private async pause(): Promise<void> {
    if (performance.now() < this.sliceEnd) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.sliceEnd = performance.now() + SLICE_MS;
  }

  /** The index after the string starting at `i` (a quote). */
  private stringEnd(i: number): number {
    const text = this.text;
    let j = i;
    for (;;) {
      j = text.indexOf('"', j + 1);
      if (j < 0) invalid();
      let backslashes = 0;
      while (text.charCodeAt(j - 1 - backslashes) === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) return j + 1;
    }
  }

  /** The index after the value starting at `i` (not space); only its nesting is checked here. */
  private valueEnd(i: number): number {
    const text = this.text;
    const first = text.charCodeAt(i);
    if (first === QUOTE) return this.stringEnd(i);
    if (first !== OPEN_BRACKET && first !== OPEN_BRACE) {
      let j = i;
      while (j < text.length) {
        const c = text.charCodeAt(j);
        if (c === COMMA || c === CLOSE_BRACKET || c === CLOSE_BRACE || isSpace(c)) break;
        j++;
      }
      return j;
    }
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === QUOTE) j = this.stringEnd(j) - 1;
      else if (c === OPEN_BRACKET || c === OPEN_BRACE) depth++;
      else if ((c === CLOSE_BRACKET || c === CLOSE_BRACE) && --depth === 0) return j + 1;
    }
    return invalid();
  }

  private isContainer(i: number): boolean {
    const c = this.text.charCodeAt(i);
    return c === OPEN_BRACKET || c === OPEN_BRACE;
  }

  /**
   * The array or object starting at `i`: its elements (members) gathered into pieces parsed in one
   * `JSON.parse` each; an element longer than SPLIT_CHARS that is itself an array or object is split in
   * turn. At depth 0 and 1 every array or object is split (no scan of the whole document first).
   */
  async container(i: number, depth: number): Promise<{ value: unknown; end: number }> {
    const text = this.text;
    const isArray = text.charCodeAt(i) === OPEN_BRACKET;
    const close = isArray ? CLOSE_BRACKET : CLOSE_BRACE;
    const items: unknown[] = [];
    const members: Record<string, unknown> = {};
    let pieceStart = -1; // start of the elements gathered for the next piece
    let pieceEnd = -1;
    const flush = () => {
      if (pieceStart < 0) return;
      const body = text.slice(pieceStart, pieceEnd);
      const parsed = this.parse(isArray ? `[${body}]` : `{${body}}`);
      if (isArray) for (const item of parsed as unknown[]) items.push(item);
      // a request body's `__proto__` was refused by the piece's parse; trusted text keeps it as a key
      else
        for (const k of Object.keys(parsed as object))
          setMember(members, k, (parsed as Record<string, unknown>)[k]);
      pieceStart = pieceEnd = -1;
    };
    let j = this.skipSpace(i + 1);
    if (text.charCodeAt(j) === close) return { value: isArray ? items : members, end: j + 1 };
    for (;;) {
      const elementStart = j;
      let key: string | null = null;
      if (!isArray) {
        if (text.charCodeAt(j) !== QUOTE) invalid();
        const keyEnd = this.stringEnd(j);
        key = this.parse(text.slice(j, keyEnd)) as string;
        j = this.skipSpace(keyEnd);
        if (text.charCodeAt(j) !== COLON) invalid();
        j = this.skipSpace(j + 1);
      }
      if (j >= text.length) invalid();
      const valueStart = j;
      let split = false;
      if (this.isContainer(valueStart) && depth + 1 < MAX_SPLIT_DEPTH) {
        if (depth < 1) split = true;
        else {
          j = this.valueEnd(valueStart);
          split = j - valueStart > SPLIT_CHARS;
        }
      } else j = this.valueEnd(valueStart);
      if (split) {
        flush();
        const inner = await this.container(valueStart, depth + 1);
        j = inner.end;
        if (isArray) items.push(inner.value);
        else {
          const value = inner.value as Record<string, unknown>;
          if (!this.keepProtoKeys) {
            if (key === '__proto__') throw forbiddenJsonKey('__proto__');
            if (key === 'constructor' && !Array.isArray(value) && Object.hasOwn(value, 'prototype'))
              throw forbiddenJsonKey('constructor');
          }
          setMember(members, key!, value);
        }
      } else {
        if (pieceStart < 0) pieceStart = elementStart;
        pieceEnd = j;
        if (pieceEnd - pieceStart >= PIECE_CHARS) {
          flush();
          await this.pause();
        }
      }
      j = this.skipSpace(j);
      const c = text.charCodeAt(j);
      if (c === COMMA) {
        // a piece ends after its last element (the commas between its elements are inside it)
        j = this.skipSpace(j + 1);
        continue;
      }
      if (c !== close) invalid();
      flush();
      return { value: isArray ? items : members, end: j + 1 };
    }
  }
}

/** Array elements serialised by one `JSON.stringify` in `stringifyJsonSliced`. */
const STRINGIFY_ITEMS = 256;

/**
 * `JSON.stringify(value)` in slices of the event loop: long arrays (a table's 100,000 rows) are written
 * STRINGIFY_ITEMS elements at a time, the loop handed back every SLICE_MS; the text is the one
 * `JSON.stringify` gives for plain JSON data (objects, arrays, strings, numbers, booleans, null).
 */
export async function stringifyJsonSliced(value: unknown): Promise<string> {
  return (await jsonParts(value, pauser())).join('');
}

/**
 * `stringifyJsonSliced` as UTF-8 bytes, after `prefix`: the parts are measured and written into one buffer
 * of their exact size in slices too, so no step joins or encodes the whole text (a 100,000-row table's
 * 15 MB: the join and its encoding by the database driver held the loop 24-29 ms of CPU, load 7-9).
 */
export async function stringifyJsonBytesSliced(
  value: unknown,
  prefix: readonly number[] = [],
): Promise<Buffer> {
  const pause = pauser();
  const parts = await jsonParts(value, pause);
  let total = prefix.length;
  for (let i = 0; i < parts.length; i++) {
    total += Buffer.byteLength(parts[i]);
    if (i % STRINGIFY_ITEMS === 0) await pause();
  }
  const bytes = Buffer.allocUnsafe(total);
  bytes.set(prefix, 0);
  let offset = prefix.length;
  for (const part of parts) {
    offset += bytes.write(part, offset);
    await pause();
  }
  return bytes;
}

/** A pause that hands the event loop back once SLICE_MS have passed since the last. */
function pauser(): () => Promise<void> {
  let sliceEnd = performance.now() + SLICE_MS;
  return async () => {
    if (performance.now() < sliceEnd) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    sliceEnd = performance.now() + SLICE_MS;
  };
}

/** The text of `stringifyJsonSliced` as its parts, in order (the long arrays written a chunk at a time). */
async function jsonParts(value: unknown, pause: () => Promise<void>): Promise<string[]> {
  const parts: string[] = [];
  const write = async (node: unknown, depth: number): Promise<void> => {
    if (Array.isArray(node) && node.length > STRINGIFY_ITEMS && depth < MAX_SPLIT_DEPTH) {
      parts.push('[');
      for (let i = 0; i < node.length; i += STRINGIFY_ITEMS) {
        const chunk = JSON.stringify(node.slice(i, i + STRINGIFY_ITEMS));
        parts.push(i === 0 ? '' : ',', chunk.slice(1, -1));
        await pause();
      }
      parts.push(']');
      return;
    }
    if (
      node !== null &&
      typeof node === 'object' &&
      !Array.isArray(node) &&
      depth < 2 &&
      typeof (node as { toJSON?: unknown }).toJSON !== 'function'
    ) {
      parts.push('{');
      let first = true;
      for (const [key, child] of Object.entries(node)) {
        if (child === undefined || typeof child === 'function' || typeof child === 'symbol') continue;
        parts.push(first ? '' : ',', JSON.stringify(key), ':');
        first = false;
        await write(child, depth + 1);
      }
      parts.push('}');
      return;
    }
    parts.push(JSON.stringify(node) ?? 'null');
  };
  await write(value, 0);
  return parts;
}
