import {
  isInt4,
  isoFromPgMicros,
  jsonbAcceptedText,
  jsonbStrings,
  PG_ARRAY_HEADER_BYTES,
  pgMicros,
  PgOid,
  PgRecordWriter,
  pgTextFieldRoom,
  readPgMicros,
  readUuid,
  storableText,
  writePgArrayHeader,
  writePgMicros,
  writeUuid,
} from '@arbiter/platform';
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
 * parameter (`auditRowArray`): a 20-byte array header, then the entries' bytes as they lie. The binary
 * format itself (OIDs, array header, field writer, uuid / timestamptz / text conversions) is the
 * platform's (`@arbiter/platform`, `database/pg-binary.ts`); this file owns the row layout. PostgreSQL
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
const { uuid: UUID_OID, int4: INT4_OID, timestamptz: TIMESTAMPTZ_OID, float8: FLOAT8_OID } = PgOid;

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
  let size = PG_ARRAY_HEADER_BYTES;
  for (const entry of entries) size += entry.byteLength;
  // a buffer of its own when allocating (never a slice of Node's shared pool): the writer may keep it as its scratch
  const out = scratch && scratch.length >= size ? scratch.subarray(0, size) : Buffer.allocUnsafeSlow(size);
  writePgArrayHeader(out, rowTypeOid, entries.length);
  let at = PG_ARRAY_HEADER_BYTES;
  for (let i = 0; i < entries.length;) {
    const first = entries[i];
    let last = first;
    while (++i < entries.length && last.precedes(entries[i])) last = entries[i];
    at = first.copyRunInto(last, out, at);
  }
  return out;
}

const writer = new PgRecordWriter();

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
  const tenantId = storableText(e.tenantId);
  const workflowName = storableText(e.workflowName);
  const correlationId = storableText(e.correlationId);
  const status = storableText(e.status);
  const arm = storableText(e.arm);
  const rolloutId = e.rolloutId === null || e.rolloutId === undefined ? null : storableText(e.rolloutId);
  const mode = storableText(e.mode);
  const rulesMatched = jsonbStrings(e.rulesMatched);
  const shadowDiff =
    e.shadowDiff === null || e.shadowDiff === undefined
      ? null
      : jsonbAcceptedText(JSON.stringify(e.shadowDiff));
  const version = e.version ?? null;
  if (version !== null && !isInt4(version))
    throw new TypeError(`Not a version number: ${JSON.stringify(version)}`);
  const micros = pgMicros(e.executedAt);
  let room = 8 + 24 + 16 + 12 + 16 + 16 + 8 + 20 + 9 + 9; // length, count, fixed fields, array header, jsonb
  room +=
    pgTextFieldRoom(tenantId) +
    pgTextFieldRoom(workflowName) +
    pgTextFieldRoom(correlationId) +
    pgTextFieldRoom(status);
  room += pgTextFieldRoom(arm) + pgTextFieldRoom(rolloutId) + pgTextFieldRoom(mode);
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
    writePgMicros(out, w.fixed(TIMESTAMPTZ_OID, 8), micros);
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
    t: isoFromPgMicros(readPgMicros(bytes, tAt)),
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
