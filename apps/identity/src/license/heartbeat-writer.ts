import { Database } from '@arbiter/platform';
import { Injectable } from '@nestjs/common';
import { ActivationRepository, HeartbeatOutcome, HeartbeatSpend } from './persistence/activation.repository';

/** Heartbeats written per statement at most. */
export const MAX_BATCH = 256;
/** Statements in flight at once (on PostgreSQL; the embedded PGlite has one connection: one). */
const MAX_IN_FLIGHT = 2;
/** Deadlocks (another replica's batch locking the same nonces in another order) retried per batch. */
const DEADLOCK_RETRIES = 2;

interface Waiter {
  spend: HeartbeatSpend;
  resolve: (outcome: HeartbeatOutcome | undefined) => void;
  reject: (error: unknown) => void;
}

interface Batch {
  waiters: Waiter[];
  /** Later calls naming a nonce of this batch, by nonce hash: they run once the batch is written. */
  duplicates: Map<string, Waiter[]>;
  /** Set when the statement answered: what it did, by nonce hash. */
  outcomes?: Map<string, HeartbeatOutcome>;
}

/**
 * Group commit of heartbeat writes: the heartbeats that arrive while statements are in flight (or within
 * the same turn of the event loop) are written together, in ONE statement over arrays
 * (`ActivationRepository.heartbeats`), up to `MAX_BATCH` per statement and `MAX_IN_FLIGHT` statements at
 * once. A round trip and a commit per batch instead of per call is what lets PostgreSQL and this process
 * answer thousands of heartbeats a second.
 *
 * Every call keeps the semantics of a statement of its own: a nonce is spent once (inside this process
 * two calls naming the same nonce never share a statement: the first takes it, the others wait for its
 * statement and are then answered as a spent nonce, unless the first spent nothing because it named
 * another proof or its statement failed: then they are written in turn); across replicas PostgreSQL's row locks decide, as before. Each answer
 * gets its own counter value. A statement that fails rejects only the calls it carried, with its error
 * (a deadlock with another replica's batch is retried first); the next batch runs as usual.
 */
@Injectable()
export class HeartbeatWriter {
  private pending: Batch = { waiters: [], duplicates: new Map() };
  /** The batch of each nonce hash pending or in flight in this process. */
  private readonly owners = new Map<string, Batch>();
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;

  constructor(
    private readonly database: Database,
    private readonly activations: ActivationRepository,
  ) {
    this.maxInFlight = database.isEmbedded ? 1 : MAX_IN_FLIGHT;
  }

  /** Spends `spend.nonceHash`: the answer's data, `'mismatch'`, or undefined (unknown or spent nonce). */
  write(spend: HeartbeatSpend): Promise<HeartbeatOutcome | undefined> {
    return new Promise((resolve, reject) => this.enqueue({ spend, resolve, reject }));
  }

  private enqueue(waiter: Waiter): void {
    const hash = waiter.spend.nonceHash;
    const owner = this.owners.get(hash);
    if (owner) {
      const same = owner.duplicates.get(hash);
      if (same) same.push(waiter);
      else owner.duplicates.set(hash, [waiter]);
      return;
    }
    this.owners.set(hash, this.pending);
    this.pending.waiters.push(waiter);
    if (this.inFlight >= this.maxInFlight) return; // the statement that ends first takes it
    if (this.pending.waiters.length >= MAX_BATCH) this.flush();
    else if (!this.scheduled) {
      // the rest of this turn's arrivals (every request parsed in this I/O phase) join the batch
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        if (this.inFlight < this.maxInFlight) this.flush();
      });
    }
  }

  private flush(): void {
    if (!this.pending.waiters.length) return;
    const batch = this.pending;
    if (batch.waiters.length > MAX_BATCH) {
      // the first MAX_BATCH go; the rest (and their duplicates) stay pending
      const rest: Batch = { waiters: batch.waiters.splice(MAX_BATCH), duplicates: new Map() };
      for (const w of rest.waiters) this.owners.set(w.spend.nonceHash, rest);
      for (const [hash, waiters] of batch.duplicates) {
        if (this.owners.get(hash) !== rest) continue;
        rest.duplicates.set(hash, waiters);
        batch.duplicates.delete(hash);
      }
      this.pending = rest;
    } else {
      this.pending = { waiters: [], duplicates: new Map() };
    }
    this.inFlight++;
    void this.run(batch).finally(() => {
      this.inFlight--;
      this.settle(batch);
      if (this.pending.waiters.length && this.inFlight < this.maxInFlight) this.flush();
    });
  }

  private async run(batch: Batch): Promise<void> {
    // sorted by nonce hash: two replicas' batches lock shared nonces in the same order
    const spends = batch.waiters.map((w) => w.spend).sort((a, b) => (a.nonceHash < b.nonceHash ? -1 : 1));
    let outcomes: Map<string, HeartbeatOutcome>;
    for (let attempt = 0; ; attempt++) {
      try {
        outcomes = await this.activations.heartbeats(this.database, spends);
        break;
      } catch (error) {
        if ((error as { code?: string }).code === '40P01' && attempt < DEADLOCK_RETRIES) continue;
        for (const w of batch.waiters) w.reject(error);
        return;
      }
    }
    batch.outcomes = outcomes;
    for (const w of batch.waiters) w.resolve(outcomes.get(w.spend.nonceHash));
  }

  /** The batch is done: its nonces are free again; their duplicates are answered or queued. */
  private settle(batch: Batch): void {
    for (const w of batch.waiters) this.owners.delete(w.spend.nonceHash);
    for (const [hash, waiters] of batch.duplicates) {
      const outcome = batch.outcomes?.get(hash);
      // spent by the first, or unknown to it: spent or unknown for the others too
      if (batch.outcomes && outcome !== 'mismatch') for (const w of waiters) w.resolve(undefined);
      // the first named another proof (the nonce is still there) or its statement failed: they try themselves
      else for (const w of waiters) this.enqueue(w);
    }
  }
}
