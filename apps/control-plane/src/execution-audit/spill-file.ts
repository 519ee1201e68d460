import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { decodeSpilledEntry, EncodedAuditEntry } from './audit-row';

const SPILL = '.ndjson';
const CLAIMED = '.replaying';
const REJECTED = '.rejected';

/** Lines of a spill file: the records it holds and the lines that could not be read back. */
export interface SpilledContent {
  records: EncodedAuditEntry[];
  unreadable: string[];
}

/**
 * Append-only NDJSON files holding execution audit entries while the database is unavailable.
 * Each service instance writes its own files (`<host>-<pid>-<start>-<random>-<n>.ndjson`); replay
 * claims a file by renaming it (`.replaying`), so two replicas sharing the folder never read the same
 * file twice, and new spills go to a fresh file. Entries the database refused for their content go to
 * `<instance>.rejected` (never replayed; for an operator to look at).
 */
export class SpillFiles {
  readonly directory: string;
  private readonly instance = `${hostname()}-${process.pid}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  private sequence = 0;
  /** Appends and claims are serialised, and a claim moves appends to a new file name. */
  private lock: Promise<unknown> = Promise.resolve();

  constructor(directory: string) {
    this.directory = resolve(directory);
  }

  /** Appends the entries (fsynced) and returns the file written. Their rows are read at once, when called. */
  append(records: EncodedAuditEntry[]): Promise<string> {
    const lines = records.map((r) => r.row);
    return this.exclusive(async () => {
      const file = join(this.directory, `${this.instance}-${this.sequence}${SPILL}`);
      await this.write(file, lines);
      return file;
    });
  }

  /** Keeps lines the database refused (or that could not be parsed) out of the replay. */
  reject(lines: string[]): Promise<void> {
    if (lines.length === 0) return Promise.resolve();
    return this.exclusive(() => this.write(join(this.directory, `${this.instance}${REJECTED}`), lines));
  }

  /**
   * Claims every spill file of the folder (from any instance, including files left claimed by an
   * instance that stopped mid-replay) and returns the claimed paths, oldest first.
   */
  claimAll(): Promise<string[]> {
    return this.exclusive(async () => {
      const names = await readdir(this.directory).catch(() => [] as string[]);
      this.sequence++;
      const claimed: string[] = [];
      for (const name of names.filter((n) => n.endsWith(SPILL) || n.endsWith(CLAIMED)).sort()) {
        const from = join(this.directory, name);
        const to = name.endsWith(CLAIMED) ? from : `${from}${CLAIMED}`;
        try {
          if (to !== from) await rename(from, to);
          claimed.push(to);
        } catch {
          // claimed by another replica meanwhile
        }
      }
      return claimed;
    });
  }

  async read(file: string): Promise<SpilledContent> {
    const content: SpilledContent = { records: [], unreadable: [] };
    for (const line of (await readFile(file, 'utf8')).split('\n')) {
      if (!line.trim()) continue;
      let entry: EncodedAuditEntry | undefined;
      try {
        entry = decodeSpilledEntry(line);
      } catch {
        // reported as unreadable below
      }
      if (entry) content.records.push(entry);
      else content.unreadable.push(line);
    }
    return content;
  }

  /** A claimed file goes back, under a new name, for a later replay (the database failed again). */
  async release(file: string): Promise<void> {
    const base = file.slice(0, -(SPILL.length + CLAIMED.length));
    await rename(file, `${base}-${randomBytes(3).toString('hex')}${SPILL}`).catch(() => undefined);
  }

  async remove(file: string): Promise<void> {
    await unlink(file).catch(() => undefined);
  }

  private async write(file: string, lines: string[]): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    const handle = await open(file, 'a');
    try {
      await handle.write(`${lines.join('\n')}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.lock.then(work, work);
    this.lock = run.catch(() => undefined);
    return run;
  }
}
