/**
 * JSON text written into a growing byte buffer as it is produced: a large answer (a simulate of 10,000
 * events is ~4 MB) then leaves no object, and no long string, per item alive until the end of the request —
 * each item's text is garbage as soon as it is copied, which the young-generation collector frees for free.
 */
export class JsonTextWriter {
  private buf: Buffer;
  private length = 0;

  constructor(initialBytes = 64 * 1024) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  write(text: string): this {
    // UTF-16 code units → at most 3 UTF-8 bytes each
    const needed = this.length + text.length * 3;
    if (needed > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(needed, this.buf.length * 2));
      this.buf.copy(next, 0, 0, this.length);
      this.buf = next;
    }
    this.length += this.buf.write(text, this.length);
    return this;
  }

  /** The bytes written (a view of the buffer: the writer must not be used afterwards). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}
