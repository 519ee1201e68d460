import type { ExecutionRecord } from './execution-record';

/**
 * The execution audit row format: an entry as it is buffered, spilled to a file and sent to the database.
 *
 * A row is JSON text with one-letter keys (`n` tenant, `i` execution id, `w` workflow, `v` version, `c`
 * correlation id, `t` executed at, `d` duration, `m` rules matched, `s` status, `e` error codes, `a` arm,
 * `r` rollout id, `o` mode, `x` shadow diff; a null or empty value is left out, and jsonb_to_recordset reads
 * a missing key as NULL): a small document is less for PostgreSQL to parse. A batch goes to the database as
 * one binary jsonb parameter, the rows between brackets (`jsonbArray`).
 */

/** Size of one slab of row bytes (a row larger than that gets a slab of its own, never reused). */
const SLAB_BYTES = 256 * 1024;
/** Emptied slabs kept for reuse (a batch of 1,000 rows takes about two). */
const SPARE_SLABS = 16;
/** jsonb's binary input: a format version byte, then the JSON text. */
const JSONB_VERSION = 1;
const OPEN = 0x5b; // [
const COMMA = 0x2c;
const CLOSE = 0x5d; // ]

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
 * One encoded entry: its tenant and where its row's UTF-8 bytes are. Rows are written once, when
 * recorded, one after another into slabs outside the JavaScript heap, so a buffered entry is a small
 * object: the young-generation collector, which copies whatever is alive when it runs, has no row text to
 * copy or promote (a buffered row lives until its batch is written, across collections; as a string it
 * was the largest part of what each collection copied and promoted).
 *
 * The sink releases an entry once it is stored in the database (`release`); a slab whose entries are all
 * released is reused. An entry that is never released (spilled to a file, refused) keeps its slab from
 * reuse and is freed with it by the collector.
 */
export class EncodedAuditEntry {
  private released = false;

  private constructor(
    readonly tenantId: string,
    private readonly slab: Slab,
    private readonly generation: number,
    private readonly start: number,
    /** Length of the row in UTF-8 bytes. */
    readonly byteLength: number,
  ) {}

  /** Stores a row's text (JSON of the format above) as an entry of the tenant. */
  static store(tenantId: string, row: string): EncodedAuditEntry {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; then the separator
    const slab = slabWithRoom(row.length * 3 + 1);
    const start = slab.used;
    const length = slab.bytes.write(row, start);
    // each row is followed by a comma: rows stored one after another are a piece of a JSON array as they lie
    slab.bytes[start + length] = COMMA;
    slab.used = start + length + 1;
    slab.live++;
    return new EncodedAuditEntry(tenantId, slab, slab.generation, start, length);
  }

  /** The row's JSON text (spill files, log lines, tests: not the hot path). */
  get row(): string {
    return this.bytes().toString('utf8', this.start, this.start + this.byteLength);
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

  /**
   * Whether `next` was stored right after this entry, in the same use of the same slab: the two rows and
   * their separators are then one run of bytes.
   */
  precedes(next: EncodedAuditEntry): boolean {
    return (
      next.slab === this.slab &&
      next.generation === this.generation &&
      next.start === this.start + this.byteLength + 1
    );
  }

  /** Copies the bytes from this entry's row to `last`'s separator (a run, see `precedes`) into `target`. */
  copyRunInto(last: EncodedAuditEntry, target: Buffer, offset: number): number {
    return offset + this.bytes().copy(target, offset, this.start, last.start + last.byteLength + 1);
  }

  /** The slab's bytes, refused once the slab is reused after this entry's release (a bug, never a silent misread). */
  private bytes(): Buffer {
    if (this.slab.generation !== this.generation)
      throw new Error('Execution audit entry read after it was released and its slab reused');
    return this.slab.bytes;
  }
}

/**
 * The entries' rows as a JSON array in jsonb's binary input format (a `$n::jsonb` parameter as a Buffer),
 * written into `scratch` when it is large enough (the writer reuses one), else into a new buffer. Rows
 * recorded one after another lie one after another, separators included: a batch is copied in a few runs,
 * not row by row.
 */
export function jsonbArray(entries: readonly EncodedAuditEntry[], scratch?: Buffer): Buffer {
  let size = 2; // version, opening bracket; each row brings its separator, the last one's becomes the closing bracket
  for (const entry of entries) size += entry.byteLength + 1;
  size = Math.max(size, 3);
  // a buffer of its own when allocating (never a slice of Node's shared pool): the writer may keep it as its scratch
  const out = scratch && scratch.length >= size ? scratch.subarray(0, size) : Buffer.allocUnsafeSlow(size);
  out[0] = JSONB_VERSION;
  out[1] = OPEN;
  let at = 2;
  for (let i = 0; i < entries.length;) {
    const first = entries[i];
    let last = first;
    while (++i < entries.length && last.precedes(entries[i])) last = entries[i];
    at = first.copyRunInto(last, out, at);
  }
  out[size - 1] = CLOSE;
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

/** A number as JSON.stringify writes it (a finite one as `String` does; anything else as null). */
const jsonNumber = (value: number) => (Number.isFinite(value) ? String(value) : 'null');

/**
 * Written out key by key rather than by `JSON.stringify` of an object: no object is built, and a string that
 * needs no escape (nearly all of them) is put between quotes as it is. Any other string goes through
 * `JSON.stringify` (so what a caller chose — workflow, correlation id, node names — is escaped) and then has
 * what jsonb refuses replaced; so has the shadow diff.
 */
export function encodeAuditEntry(e: ExecutionRecord): EncodedAuditEntry {
  let row =
    '{"n":' +
    jsonString(e.tenantId) +
    ',"i":' +
    jsonString(e.executionId) +
    ',"w":' +
    jsonString(e.workflowName);
  if (e.version !== null && e.version !== undefined) row += ',"v":' + jsonNumber(e.version);
  row +=
    ',"c":' +
    jsonString(e.correlationId) +
    ',"t":' +
    jsonString(e.executedAt) +
    ',"d":' +
    jsonNumber(e.executionTimeMs) +
    ',"m":' +
    jsonStrings(e.rulesMatched) +
    ',"s":' +
    jsonString(e.status);
  if (e.errorCodes.length) row += ',"e":' + jsonStrings(e.errorCodes);
  row += ',"a":' + jsonString(e.arm);
  if (e.rolloutId !== null && e.rolloutId !== undefined) row += ',"r":' + jsonString(e.rolloutId);
  row += ',"o":' + jsonString(e.mode);
  if (e.shadowDiff !== null && e.shadowDiff !== undefined)
    row += ',"x":' + acceptedByJsonb(JSON.stringify(e.shadowDiff));
  return EncodedAuditEntry.store(e.tenantId, row + '}');
}

/**
 * A line of a spill file back as an entry: the encoded row, or a whole `ExecutionRecord` (the spill format
 * before rows were encoded when recorded). Undefined when the line is neither.
 */
export function decodeSpilledEntry(line: string): EncodedAuditEntry | undefined {
  const value = JSON.parse(line) as Record<string, unknown> | null;
  if (typeof value?.n === 'string' && typeof value.i === 'string')
    return EncodedAuditEntry.store(value.n, line);
  if (typeof value?.tenantId === 'string' && typeof value.executionId === 'string')
    return encodeAuditEntry(value as unknown as ExecutionRecord);
  return undefined;
}

/** The execution id of an encoded entry (for log lines; not a hot path). */
export function executionIdOf(entry: EncodedAuditEntry): string {
  return (JSON.parse(entry.row) as { i: string }).i;
}
