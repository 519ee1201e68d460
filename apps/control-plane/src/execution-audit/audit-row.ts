import type { ExecutionRecord } from './execution-record';

/**
 * The execution audit row format: an entry as it is buffered and sent to the database, and as it is spilled
 * to a file.
 *
 * In memory and on the wire an entry is one element of a PostgreSQL binary array of the composite type
 * `execution_audit_row` (migration 1732060000700): a 4-byte length, then the record in binary form (the
 * number of fields, then per field its type's OID, its length, or -1 for NULL, and its binary value: a uuid
 * as 16 bytes, a timestamptz as microseconds since 2000, text as UTF-8, jsonb as a version byte and JSON
 * text, text[] as a binary array). A batch goes to the database as one `$1::execution_audit_row[]`
 * parameter (`auditRowArray`): a 20-byte array header, then the entries' bytes as they lie. PostgreSQL
 * reads each value with its type's receive function; nothing is parsed but the two jsonb values (rules
 * matched, shadow diff). Measured against the earlier jsonb batch (rows as JSON text, read by
 * `jsonb_to_recordset`) on PostgreSQL 15, 1,000-row batches: 8.6–9.7 µs per row instead of 12.6–13.9.
 *
 * A spill file holds one JSON row per line with one-letter keys (`n` tenant, `i` execution id, `w`
 * workflow, `v` version, `c` correlation id, `t` executed at, `d` duration, `m` rules matched, `s` status,
 * `e` error codes, `a` arm, `r` rollout id, `o` mode, `x` shadow diff; a null or empty value left out):
 * `EncodedAuditEntry.row` writes it, `decodeSpilledEntry` reads it (and the older whole-record lines).
 */

/** Name of the composite type a batch is an array of (its OID goes into the array header). */
export const AUDIT_ROW_TYPE = 'execution_audit_row';
/** Fields of `execution_audit_row`, in order (the columns of `execution_audit`). */
const FIELDS = 14;
/** Type OIDs of the fields (fixed for built-in types). */
const UUID_OID = 2950;
const TEXT_OID = 25;
const INT4_OID = 23;
const TIMESTAMPTZ_OID = 1184;
const FLOAT8_OID = 701;
const JSONB_OID = 3802;
const TEXT_ARRAY_OID = 1009;
/** jsonb's binary input: a format version byte, then the JSON text. */
const JSONB_VERSION = 1;
/** 2000-01-01T00:00:00Z, PostgreSQL's epoch, in Unix milliseconds. */
const PG_EPOCH_MS = 946_684_800_000;
const TWO_32 = 4_294_967_296;
const INT4_MIN = -2_147_483_648;
const INT4_MAX = 2_147_483_647;
/** Bytes of the array header: dimensions, flags, element type, length, lower bound. */
const ARRAY_HEADER_BYTES = 20;

/** Size of one slab of row bytes (a row larger than that gets a slab of its own, never reused). */
const SLAB_BYTES = 256 * 1024;
/** Emptied slabs kept for reuse (a batch of 1,000 rows takes about two). */
const SPARE_SLABS = 16;

/**
 * A buffer outside the JavaScript heap that rows are written into one after another. It is reused once
 * every entry stored in it has been released: allocating a fresh buffer for every few hundred rows made V8
 * count megabytes of external memory a second and run a full collection (a pause of 5 to 10 ms) every
 * second or so under load.
 */
class Slab {
  readonly bytes: Buffer;
  used = 0;
  /** Entries stored and not released. */
  live = 0;
  /** Bumped at each reuse: an entry of an earlier use can no longer be read (see `EncodedAuditEntry.bytes`). */
  generation = 0;

  constructor(size: number) {
    this.bytes = Buffer.allocUnsafeSlow(size);
  }
}

const spareSlabs: Slab[] = [];
let currentSlab = new Slab(SLAB_BYTES);

function slabWithRoom(room: number): Slab {
  if (currentSlab.used + room <= currentSlab.bytes.length) return currentSlab;
  const full = currentSlab;
  if (room > SLAB_BYTES) return new Slab(room); // a single huge row: a slab of its own, dropped with it
  const reused = spareSlabs.pop();
  if (reused) {
    reused.used = 0;
    reused.generation++;
    currentSlab = reused;
  } else currentSlab = new Slab(SLAB_BYTES);
  if (full.live === 0) spare(full);
  return currentSlab;
}

function spare(slab: Slab) {
  if (slab !== currentSlab && slab.bytes.length === SLAB_BYTES && spareSlabs.length < SPARE_SLABS)
    spareSlabs.push(slab);
}

/**
 * One encoded entry: its tenant and where its bytes (an array element, see above) are. Entries are written
 * once, when recorded, one after another into slabs outside the JavaScript heap, so a buffered entry is a
 * small object: the young-generation collector, which copies whatever is alive when it runs, has no row to
 * copy or promote (a buffered entry lives until its batch is written, across collections).
 *
 * The sink releases an entry once it is stored in the database (`release`); a slab whose entries are all
 * released is reused. An entry that is never released (spilled to a file, refused) keeps its slab from
 * reuse and is freed with it by the collector.
 */
/** The counter of `rollout_arm_counts` an entry adds to (its tenant aside), and whether it adds an error. */
export interface RolloutArmOfEntry {
  readonly rolloutId: string;
  readonly workflowName: string;
  readonly arm: string;
  readonly version: number | null;
  readonly failed: boolean;
}

export class EncodedAuditEntry {
  private released = false;

  private constructor(
    readonly tenantId: string,
    /** Where rollout metrics count the entry (null: it ran in no rollout). */
    readonly rolloutArm: RolloutArmOfEntry | null,
    private readonly slab: Slab,
    private readonly generation: number,
    private readonly start: number,
    /** Bytes of the array element, its length word included. */
    readonly byteLength: number,
  ) {}

  /** Stores what `write` writes (at most `room` bytes) as an entry of the tenant. */
  static store(
    tenantId: string,
    rolloutArm: RolloutArmOfEntry | null,
    room: number,
    write: (out: Buffer, at: number) => number,
  ): EncodedAuditEntry {
    const slab = slabWithRoom(room);
    const start = slab.used;
    const end = write(slab.bytes, start);
    slab.used = end;
    slab.live++;
    return new EncodedAuditEntry(tenantId, rolloutArm, slab, slab.generation, start, end - start);
  }

  /** The entry as a spill line (JSON with one-letter keys; spill files, log lines, tests: not the hot path). */
  get row(): string {
    return spillLine(decodeRecord(this.bytes(), this.start));
  }

  /** The execution id (log lines; not a hot path). */
  get executionId(): string {
    return readUuid(this.bytes(), this.start + 16);
  }

  /**
   * The entry is stored for good and will not be read again: its bytes may be overwritten once its slab's
   * other entries are released too. Releasing twice is harmless.
   */
  release(): void {
    if (this.released) return;
    this.released = true;
    if (--this.slab.live === 0 && this.slab.generation === this.generation) spare(this.slab);
  }

  /** Whether `next` was stored right after this entry, in the same use of the same slab: one run of bytes. */
  precedes(next: EncodedAuditEntry): boolean {
    return (
      next.slab === this.slab &&
      next.generation === this.generation &&
      next.start === this.start + this.byteLength
    );
  }

  /** Copies the bytes from this entry to the end of `last` (a run, see `precedes`) into `target`. */
  copyRunInto(last: EncodedAuditEntry, target: Buffer, offset: number): number {
    return offset + this.bytes().copy(target, offset, this.start, last.start + last.byteLength);
  }

  /** The slab's bytes, refused once the slab is reused after this entry's release (a bug, never a silent misread). */
  private bytes(): Buffer {
    if (this.slab.generation !== this.generation)
      throw new Error('Execution audit entry read after it was released and its slab reused');
    return this.slab.bytes;
  }
}

/**
 * The entries as one binary array of `execution_audit_row` (a `$n::execution_audit_row[]` parameter as a
 * Buffer; `rowTypeOid` is the type's OID in that database), written into `scratch` when it is large enough
 * (the writer reuses one), else into a new buffer. Entries recorded one after another lie one after another:
 * a batch is copied in a few runs, not entry by entry.
 */
export function auditRowArray(
  entries: readonly EncodedAuditEntry[],
  rowTypeOid: number,
  scratch?: Buffer,
): Buffer {
  let size = ARRAY_HEADER_BYTES;
  for (const entry of entries) size += entry.byteLength;
  // a buffer of its own when allocating (never a slice of Node's shared pool): the writer may keep it as its scratch
  const out = scratch && scratch.length >= size ? scratch.subarray(0, size) : Buffer.allocUnsafeSlow(size);
  out.writeInt32BE(1, 0); // one dimension
  out.writeInt32BE(0, 4); // no NULL element
  out.writeUInt32BE(rowTypeOid, 8);
  out.writeInt32BE(entries.length, 12);
  out.writeInt32BE(1, 16); // lower bound
  let at = ARRAY_HEADER_BYTES;
  for (let i = 0; i < entries.length;) {
    const first = entries[i];
    let last = first;
    while (++i < entries.length && last.precedes(entries[i])) last = entries[i];
    at = first.copyRunInto(last, out, at);
  }
  return out;
}

/**
 * What jsonb refuses and JSON.stringify writes: U+0000 (`\u0000`) and a lone surrogate (`\ud800`–`\udfff`;
 * a proper pair is written as the character itself, never escaped). Every such escape (one preceded by an
 * even number of backslashes, so not a literal backslash followed by "u0000") becomes U+FFFD, so one odd
 * value (a node id, a shadow diff's value from the facts) cannot block a batch. Done on the finished text of
 * a value JSON.stringify wrote: a replacer callback per value costs more.
 */
const REFUSED_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g;
const mayHoldRefusedEscape = (json: string) => json.includes('\\u0000') || json.includes('\\ud');
const acceptedByJsonb = (json: string) =>
  mayHoldRefusedEscape(json) ? json.replace(REFUSED_ESCAPE, '$1\\ufffd') : json;

/**
 * A string JSON writes as it is between quotes: no quote, backslash, control character or surrogate (a
 * surrogate pair is safe too, but rare enough to take the slow path). Almost every audit string is one
 * (ids, ISO instants, enum values, node ids); testing is ten times cheaper than `JSON.stringify`.
 */
// eslint-disable-next-line no-control-regex -- control characters are what the class excludes
const WRITTEN_AS_IS = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A string as JSON text that jsonb accepts. */
function jsonString(value: string): string {
  return WRITTEN_AS_IS.test(value) ? '"' + value + '"' : acceptedByJsonb(JSON.stringify(value));
}

function jsonStrings(values: readonly string[]): string {
  if (values.length === 0) return '[]';
  let text = '[' + jsonString(values[0]);
  for (let i = 1; i < values.length; i++) text += ',' + jsonString(values[i]);
  return text + ']';
}

/** Text as PostgreSQL stores it: U+0000, which `text` cannot hold, becomes U+FFFD (as the JSON rows had it). */
const storable = (value: string) => (value.includes('\u0000') ? value.replaceAll('\u0000', '\ufffd') : value);

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
function writeUuid(out: Buffer, at: number, uuid: string): void {
  if (uuid.length !== 36 || DASHES.some((d) => uuid.charCodeAt(d) !== 0x2d))
    throw new TypeError(`Not a UUID: ${JSON.stringify(uuid)}`);
  for (let k = 0; k < 16; k++) {
    const hi = HEX_VALUE[uuid.charCodeAt(UUID_PAIRS[k])] ?? -1;
    const lo = HEX_VALUE[uuid.charCodeAt(UUID_PAIRS[k] + 1)] ?? -1;
    if (hi < 0 || lo < 0) throw new TypeError(`Not a UUID: ${JSON.stringify(uuid)}`);
    out[at + k] = (hi << 4) | lo;
  }
}

function readUuid(bytes: Buffer, at: number): string {
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
 * Microseconds since 2000-01-01 of an ISO-8601 instant (`Date.parse` for the milliseconds, the fraction's
 * fourth to sixth digits for the rest, as PostgreSQL keeps them); anything else is refused (TypeError). The
 * last one is remembered: executions of one millisecond share their stamp.
 */
function pgMicros(iso: string): number {
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

function isoFromPgMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const rest = micros - ms * 1000;
  const iso = new Date(ms + PG_EPOCH_MS).toISOString();
  return rest ? `${iso.slice(0, -1)}${String(rest).padStart(3, '0')}Z` : iso;
}

/** Whether a value fits PostgreSQL's `int` (the version column). */
export const isInt4 = (value: unknown): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= INT4_MIN && value <= INT4_MAX;

/** An upper bound of the UTF-8 bytes of a field's value (3 per UTF-16 unit) with its OID and length words. */
const textRoom = (value: string | null) => 8 + (value ? value.length * 3 : 0);

/** Writes one binary record field (type OID, length, value); `null` is a NULL. */
class RecordWriter {
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
        const n = out.write(storable(value), at + 4);
        out.writeInt32BE(n, at);
        at += 4 + n;
      }
    }
    out.writeInt32BE(at - lengthAt - 4, lengthAt);
    this.at = at;
  }

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

const writer = new RecordWriter();

let lastRolloutArm: RolloutArmOfEntry | null = null;

/**
 * An entry's rollout counter, the last one again when it is the same (consecutive executions nearly always
 * run in the same arm): one object for a run of entries, not one more per buffered entry.
 */
function rolloutArmOf(
  rolloutId: string,
  workflowName: string,
  arm: string,
  version: number | null,
  status: string,
): RolloutArmOfEntry {
  const failed = status === 'error';
  const last = lastRolloutArm;
  if (
    last !== null &&
    last.rolloutId === rolloutId &&
    last.workflowName === workflowName &&
    last.arm === arm &&
    last.version === version &&
    last.failed === failed
  )
    return last;
  return (lastRolloutArm = { rolloutId, workflowName, arm, version, failed });
}

/**
 * An execution record as an entry: written field by field into the slab, with no intermediate string but
 * the two jsonb values' JSON (a string that needs no escape — nearly all of them — is put between quotes as
 * it is; any other goes through `JSON.stringify` and then has what jsonb refuses replaced). Text that
 * PostgreSQL cannot hold (U+0000) becomes U+FFFD; an execution id that is not a UUID, a version that is not
 * a 4-byte integer or an instant that does not parse is refused (TypeError: the database would refuse it).
 */
export function encodeAuditEntry(e: ExecutionRecord): EncodedAuditEntry {
  const tenantId = storable(e.tenantId);
  const workflowName = storable(e.workflowName);
  const correlationId = storable(e.correlationId);
  const status = storable(e.status);
  const arm = storable(e.arm);
  const rolloutId = e.rolloutId === null || e.rolloutId === undefined ? null : storable(e.rolloutId);
  const mode = storable(e.mode);
  const rulesMatched = jsonStrings(e.rulesMatched);
  const shadowDiff =
    e.shadowDiff === null || e.shadowDiff === undefined
      ? null
      : acceptedByJsonb(JSON.stringify(e.shadowDiff));
  const version = e.version ?? null;
  if (version !== null && !isInt4(version))
    throw new TypeError(`Not a version number: ${JSON.stringify(version)}`);
  const micros = pgMicros(e.executedAt);
  let room = 8 + 24 + 16 + 12 + 16 + 16 + 8 + 20 + 9 + 9; // length, count, fixed fields, array header, jsonb
  room += textRoom(tenantId) + textRoom(workflowName) + textRoom(correlationId) + textRoom(status);
  room += textRoom(arm) + textRoom(rolloutId) + textRoom(mode);
  room += rulesMatched.length * 3 + (shadowDiff ? shadowDiff.length * 3 : 0);
  for (const code of e.errorCodes) room += 4 + code.length * 3;
  const rolloutArm = rolloutId === null ? null : rolloutArmOf(rolloutId, workflowName, arm, version, status);
  return EncodedAuditEntry.store(tenantId, rolloutArm, room, (out, start) => {
    const w = writer;
    w.out = out;
    w.at = start + 8;
    out.writeInt32BE(FIELDS, start + 4);
    writeUuid(out, w.fixed(UUID_OID, 16), e.executionId);
    w.text(tenantId);
    w.text(workflowName);
    if (version === null) w.nullField(INT4_OID);
    else out.writeInt32BE(version, w.fixed(INT4_OID, 4));
    w.text(correlationId);
    const t = w.fixed(TIMESTAMPTZ_OID, 8);
    const high = Math.floor(micros / TWO_32);
    out.writeInt32BE(high, t);
    out.writeUInt32BE(micros - high * TWO_32, t + 4);
    out.writeDoubleBE(e.executionTimeMs, w.fixed(FLOAT8_OID, 8));
    w.jsonb(rulesMatched);
    w.text(status);
    w.textArray(e.errorCodes);
    w.text(arm);
    w.text(rolloutId);
    w.text(mode);
    w.jsonb(shadowDiff);
    out.writeInt32BE(w.at - start - 4, start);
    const end = w.at;
    w.out = undefined as unknown as Buffer; // the slab is not kept alive by the writer
    return end;
  });
}

/** The fields of an entry, read back (the jsonb values as their JSON text). */
interface DecodedRow {
  n: string;
  i: string;
  w: string;
  v: number | null;
  c: string;
  t: string;
  d: number;
  m: string;
  s: string;
  e: string[];
  a: string;
  r: string | null;
  o: string;
  x: string | null;
}

function decodeRecord(bytes: Buffer, start: number): DecodedRow {
  let at = start + 8;
  const field = (): [number, number] => {
    const length = bytes.readInt32BE(at + 4);
    const valueAt = at + 8;
    at = valueAt + Math.max(length, 0);
    return [valueAt, length];
  };
  const text = () => {
    const [v, n] = field();
    return n < 0 ? null : bytes.toString('utf8', v, v + n);
  };
  const jsonb = () => {
    const [v, n] = field();
    return n < 0 ? null : bytes.toString('utf8', v + 1, v + n);
  };
  const i = readUuid(bytes, field()[0]);
  const n = text()!;
  const w = text()!;
  const [versionAt, versionLength] = field();
  const c = text()!;
  const [tAt] = field();
  const [dAt] = field();
  const m = jsonb()!;
  const s = text()!;
  const [eAt] = field();
  const e: string[] = [];
  if (bytes.readInt32BE(eAt) === 1) {
    const count = bytes.readInt32BE(eAt + 12);
    let p = eAt + 20;
    for (let k = 0; k < count; k++) {
      const len = bytes.readInt32BE(p);
      e.push(bytes.toString('utf8', p + 4, p + 4 + len));
      p += 4 + len;
    }
  }
  const a = text()!;
  const r = text();
  const o = text()!;
  const x = jsonb();
  return {
    n,
    i,
    w,
    v: versionLength < 0 ? null : bytes.readInt32BE(versionAt),
    c,
    t: isoFromPgMicros(bytes.readInt32BE(tAt) * TWO_32 + bytes.readUInt32BE(tAt + 4)),
    d: bytes.readDoubleBE(dAt),
    m,
    s,
    e,
    a,
    r,
    o,
    x,
  };
}

/** The spill line of a decoded entry (the JSON row format with one-letter keys; empty values left out). */
function spillLine(r: DecodedRow): string {
  let line = `{"n":${JSON.stringify(r.n)},"i":"${r.i}","w":${JSON.stringify(r.w)}`;
  if (r.v !== null) line += `,"v":${r.v}`;
  line += `,"c":${JSON.stringify(r.c)},"t":"${r.t}","d":${JSON.stringify(r.d)},"m":${r.m},"s":${JSON.stringify(r.s)}`;
  if (r.e.length) line += `,"e":${JSON.stringify(r.e)}`;
  line += `,"a":${JSON.stringify(r.a)}`;
  if (r.r !== null) line += `,"r":${JSON.stringify(r.r)}`;
  line += `,"o":${JSON.stringify(r.o)}`;
  if (r.x !== null) line += `,"x":${r.x}`;
  return line + '}';
}

/**
 * A line of a spill file back as an entry: a JSON row with one-letter keys, or a whole `ExecutionRecord`
 * (the spill format before rows were encoded when recorded). Undefined when the line is neither; an error
 * when its values are not what the columns take (both reported as unreadable by the reader).
 */
export function decodeSpilledEntry(line: string): EncodedAuditEntry | undefined {
  const value = JSON.parse(line) as Record<string, unknown> | null;
  if (typeof value?.n === 'string' && typeof value.i === 'string')
    return encodeAuditEntry({
      tenantId: value.n,
      executionId: value.i,
      workflowName: value.w,
      version: value.v ?? null,
      correlationId: value.c,
      executedAt: value.t,
      executionTimeMs: value.d,
      rulesMatched: value.m ?? [],
      status: value.s,
      errorCodes: value.e ?? [],
      arm: value.a,
      rolloutId: value.r ?? null,
      mode: value.o,
      shadowDiff: value.x ?? null,
    } as ExecutionRecord);
  if (typeof value?.tenantId === 'string' && typeof value.executionId === 'string')
    return encodeAuditEntry(value as unknown as ExecutionRecord);
  return undefined;
}

/** The execution id of an encoded entry (for log lines; not a hot path). */
export function executionIdOf(entry: EncodedAuditEntry): string {
  return entry.executionId;
}
