/**
 * PostgreSQL's binary format, for parameters sent as one binary array (`$1::<composite>[]` as a Buffer)
 * instead of text: PostgreSQL reads each value with its type's receive function, and nothing is parsed
 * but jsonb. Generic pieces only (type OIDs, the array header, one record field at a time, uuid,
 * timestamptz and text conversions); what a row holds is its owner's (execution-audit's row layout).
 *
 * A binary array: a 20-byte header (dimensions, has-NULL flag, element type OID, length, lower bound),
 * then per element a 4-byte length and its bytes. A binary record (composite): the number of fields,
 * then per field its type's OID, its length (-1 for NULL) and its binary value.
 */

const TEXT_OID = 25;
const JSONB_OID = 3802;
const TEXT_ARRAY_OID = 1009;

/** Type OIDs of built-in types (fixed in every database). */
export const PgOid = {
  text: TEXT_OID,
  int4: 23,
  float8: 701,
  timestamptz: 1184,
  uuid: 2950,
  jsonb: JSONB_OID,
  textArray: TEXT_ARRAY_OID,
} as const;

/** Bytes of a one-dimensional array's header: dimensions, flags, element type, length, lower bound. */
export const PG_ARRAY_HEADER_BYTES = 20;

/** Writes a one-dimensional array header (no NULL element, lower bound 1) at the start of `out`. */
export function writePgArrayHeader(out: Buffer, elementOid: number, length: number): void {
  out.writeInt32BE(1, 0); // one dimension
  out.writeInt32BE(0, 4); // no NULL element
  out.writeUInt32BE(elementOid, 8);
  out.writeInt32BE(length, 12);
  out.writeInt32BE(1, 16); // lower bound
}

/** jsonb's binary input: a format version byte, then the JSON text. */
const JSONB_VERSION = 1;
/** 2000-01-01T00:00:00Z, PostgreSQL's epoch, in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;
const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;

/** Whether a value fits PostgreSQL's `int`. */
export const isInt4 = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= INT4_MIN && value <= INT4_MAX;

/** Text as PostgreSQL stores it: U+0000, which `text` cannot hold, becomes U+FFFD. */
export const storableText = (value: string): string =>
  value.includes('\u0000') ? value.replaceAll('\u0000', '\ufffd') : value;

/**
 * What jsonb refuses and JSON.stringify writes: U+0000 (`\u0000`) and a lone surrogate (`\ud800`–`\udfff`;
 * a proper pair is written as the character itself, never escaped). Every such escape (one preceded by an
 * even number of backslashes, so not a literal backslash followed by "u0000") becomes U+FFFD, so one odd
 * value cannot block a batch. Done on the finished text JSON.stringify wrote: a replacer callback per
 * value costs more.
 */
const REFUSED_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;
const mayHoldRefusedEscape = (json: string) => json.includes('\\u0000') || json.includes('\\ud');

/** JSON text (as JSON.stringify writes it) that jsonb accepts. */
export const jsonbAcceptedText = (json: string): string =>
  mayHoldRefusedEscape(json) ? json.replace(REFUSED_ESCAPE, '$1\\ufffd') : json;

/**
 * A string JSON writes as it is between quotes: no quote, backslash, control character or surrogate (a
 * surrogate pair is safe too, but rare enough to take the slow path). Testing is ten times cheaper than
 * `JSON.stringify`, and most strings (ids, instants, enum values) pass.
 */
// eslint-disable-next-line no-control-regex -- control characters are what the class excludes
const WRITTEN_AS_IS = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A string as JSON text that jsonb accepts. */
export function jsonbString(value: string): string {
  return WRITTEN_AS_IS.test(value) ? '"' + value + '"' : jsonbAcceptedText(JSON.stringify(value));
}

/** An array of strings as JSON text that jsonb accepts. */
export function jsonbStrings(values: readonly string[]): string {
  if (values.length === 0) return '[]';
  let text = '[' + jsonbString(values[0]);
  for (let i = 1; i < values.length; i++) text += ',' + jsonbString(values[i]);
  return text + ']';
}

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;
  HEX_VALUE['0123456789ABCDEF'.charCodeAt(i)] = i;
}
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Offsets of the 16 byte pairs in the 36-character form. */
const UUID_PAIRS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const DASHES = [8, 13, 18, 23];

/** Writes the 16 bytes of a UUID in its 36-character form; throws on anything else (never a garbled key). */
export function writeUuid(out: Buffer, at: number, uuid: string): void {
  if (uuid.length !== 36 || DASHES.some((d) => uuid.charCodeAt(d) !== 0x2d))
    throw new TypeError(`Not a UUID: ${JSON.stringify(uuid)}`);
  for (let k = 0; k < 16; k++) {
    const hi = HEX_VALUE[uuid.charCodeAt(UUID_PAIRS[k])] ?? -1;
    const lo = HEX_VALUE[uuid.charCodeAt(UUID_PAIRS[k] + 1)] ?? -1;
    if (hi < 0 || lo < 0) throw new TypeError(`Not a UUID: ${JSON.stringify(uuid)}`);
    out[at + k] = (hi << 4) | lo;
  }
}

/** The 36-character form of the 16 UUID bytes at `at`. */
export function readUuid(bytes: Buffer, at: number): string {
  let text = '';
  for (let k = 0; k < 16; k++) {
    if (k === 4 || k === 6 || k === 8 || k === 10) text += '-';
    text += HEX[bytes[at + k]];
  }
  return text;
}

let lastInstant = '';
let lastMicros = 0;
const FRACTION = /\.(\d+)/;
/** An ISO-8601 instant as `toISOString` writes it (an offset is allowed). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * A timestamptz value: microseconds since 2000-01-01 of an ISO-8601 instant (`Date.parse` for the
 * milliseconds, the fraction's fourth to sixth digits for the rest, as PostgreSQL keeps them); anything
 * else is refused (TypeError). The last one is remembered: values of one millisecond share their stamp.
 */
export function pgMicros(iso: string): number {
  if (iso === lastInstant) return lastMicros;
  const ms = typeof iso === 'string' && ISO_INSTANT.test(iso) ? Date.parse(iso) : NaN;
  if (!Number.isFinite(ms)) throw new TypeError(`Not an instant: ${JSON.stringify(iso)}`);
  const fraction = FRACTION.exec(iso)?.[1] ?? '';
  const micros =
    (ms - PG_EPOCH_MS) * 1000 + (fraction.length > 3 ? Number(fraction.slice(3, 6).padEnd(3, '0')) : 0);
  lastInstant = iso;
  lastMicros = micros;
  return micros;
}

/** The ISO-8601 instant of a timestamptz value (microseconds since 2000). */
export function isoFromPgMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const rest = micros - ms * 1000;
  const iso = new Date(ms + PG_EPOCH_MS).toISOString();
  return rest ? `${iso.slice(0, -1)}${String(rest).padStart(3, '0')}Z` : iso;
}

/** Writes a timestamptz value (a 64-bit integer, big-endian) at `at`. */
export function writePgMicros(out: Buffer, at: number, micros: number): void {
  const high = Math.floor(micros / TWO_32);
  out.writeInt32BE(high, at);
  out.writeUInt32BE(micros - high * TWO_32, at + 4);
}

/** Reads a timestamptz value written by `writePgMicros`. */
export function readPgMicros(bytes: Buffer, at: number): number {
  return bytes.readInt32BE(at) * TWO_32 + bytes.readUInt32BE(at + 4);
}

/** An upper bound of a text field's bytes: its OID and length words and 3 UTF-8 bytes per UTF-16 unit. */
export const pgTextFieldRoom = (value: string | null): number => 8 + (value ? value.length * 3 : 0);

/**
 * Writes the fields of a binary record one after another into `out` from `at` (type OID, length, value;
 * `null` is a NULL). One writer is reused for every record: set `out` and `at`, write, read `at`.
 */
export class PgRecordWriter {
  out!: Buffer;
  at = 0;

  text(value: string | null): void {
    if (value === null) return this.nullField(TEXT_OID);
    this.out.writeUInt32BE(TEXT_OID, this.at);
    const n = this.out.write(value, this.at + 8);
    this.out.writeInt32BE(n, this.at + 4);
    this.at += 8 + n;
  }

  jsonb(json: string | null): void {
    if (json === null) return this.nullField(JSONB_OID);
    this.out.writeUInt32BE(JSONB_OID, this.at);
    this.out[this.at + 8] = JSONB_VERSION;
    const n = this.out.write(json, this.at + 9);
    this.out.writeInt32BE(n + 1, this.at + 4);
    this.at += 9 + n;
  }

  /** A `text[]` field (each value made storable: U+0000 becomes U+FFFD). */
  textArray(values: readonly string[]): void {
    const out = this.out;
    out.writeUInt32BE(TEXT_ARRAY_OID, this.at);
    const lengthAt = this.at + 4;
    let at = lengthAt + 4;
    out.writeInt32BE(values.length ? 1 : 0, at); // dimensions (an empty array has none)
    out.writeInt32BE(0, at + 4);
    out.writeUInt32BE(TEXT_OID, at + 8);
    at += 12;
    if (values.length) {
      out.writeInt32BE(values.length, at);
      out.writeInt32BE(1, at + 4);
      at += 8;
      for (const value of values) {
        const n = out.write(storableText(value), at + 4);
        out.writeInt32BE(n, at);
        at += 4 + n;
      }
    }
    out.writeInt32BE(at - lengthAt - 4, lengthAt);
    this.at = at;
  }

  /** A fixed-length field: writes its OID and length, returns where its value goes. */
  fixed(oid: number, length: number): number {
    this.out.writeUInt32BE(oid, this.at);
    this.out.writeInt32BE(length, this.at + 4);
    const valueAt = this.at + 8;
    this.at = valueAt + length;
    return valueAt;
  }

  nullField(oid: number): void {
    this.out.writeUInt32BE(oid, this.at);
    this.out.writeInt32BE(-1, this.at + 4);
    this.at += 8;
  }
}
