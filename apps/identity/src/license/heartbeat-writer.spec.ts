import type { Database } from '@arbiter/platform';
import { HeartbeatWriter, MAX_BATCH } from './heartbeat-writer';
import type {
  ActivationRepository,
  HeartbeatOutcome,
  HeartbeatSpend,
  HeartbeatTarget,
} from './persistence/activation.repository';

/** A stand-in for the statement: nonces by hash (owner proof), spent once; records every batch. */
class FakeStatements {
  readonly batches: HeartbeatSpend[][] = [];
  readonly nonces = new Map<string, string>();
  failNext: Error | null = null;
  private counter = 0;

  heartbeats = async (_db: Database, spends: readonly HeartbeatSpend[]) => {
    this.batches.push([...spends]);
    await new Promise((r) => setTimeout(r, 5));
    if (this.failNext) {
      const error = this.failNext;
      this.failNext = null;
      throw error;
    }
    const out = new Map<string, HeartbeatOutcome>();
    for (const s of spends) {
      const owner = this.nonces.get(s.nonceHash);
      if (owner === undefined) continue;
      if (owner !== s.proofId) {
        out.set(s.nonceHash, 'mismatch');
        continue;
      }
      this.nonces.delete(s.nonceHash);
      this.nonces.set(s.nextHash, s.proofId);
      out.set(s.nonceHash, { proof_id: s.proofId, counter: String(++this.counter) } as HeartbeatTarget);
    }
    return out;
  };
}

function setup(embedded = false) {
  const fake = new FakeStatements();
  const writer = new HeartbeatWriter(
    { isEmbedded: embedded } as Database,
    fake as unknown as ActivationRepository,
  );
  const spend = (nonceHash: string, proofId: string): HeartbeatSpend => ({
    nonceHash,
    proofId,
    licenseId: 'l',
    fingerprint: 'f',
    nextHash: `${nonceHash}-next-${Math.random()}`,
  });
  return { fake, writer, spend };
}

describe('HeartbeatWriter (group commit of heartbeats)', () => {
  it('writes the calls of one turn in one statement, each answered by its own nonce', async () => {
    const { fake, writer, spend } = setup();
    for (let i = 0; i < 20; i++) fake.nonces.set(`n${i}`, `p${i}`);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => writer.write(spend(`n${i}`, `p${i}`))),
    );
    expect(fake.batches).toHaveLength(1);
    expect(answers.map((a) => (a as HeartbeatTarget).proof_id)).toEqual(
      Array.from({ length: 20 }, (_, i) => `p${i}`),
    );
    expect(new Set(answers.map((a) => (a as HeartbeatTarget).counter)).size).toBe(20);
  });

  it('batches the calls that arrive while statements are in flight, at most MAX_BATCH per statement', async () => {
    const { fake, writer, spend } = setup(true); // one statement in flight at a time
    const n = MAX_BATCH * 2 + 10;
    for (let i = 0; i < n; i++) fake.nonces.set(`n${i}`, 'p');
    const first = writer.write(spend('n0', 'p'));
    await new Promise((r) => setImmediate(r)); // the first statement is in flight
    const rest = Array.from({ length: n - 1 }, (_, i) => writer.write(spend(`n${i + 1}`, 'p')));
    const answers = await Promise.all([first, ...rest]);
    expect(answers.every((a) => a !== undefined && a !== 'mismatch')).toBe(true);
    expect(fake.batches.map((b) => b.length)).toEqual([1, MAX_BATCH, MAX_BATCH, 9]);
  });

  it('a repeated nonce never shares a statement: the first spends it, the others are answered as spent', async () => {
    const { fake, writer, spend } = setup();
    fake.nonces.set('same', 'p');
    fake.nonces.set('other', 'q');
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => writer.write(spend('same', 'p'))),
      writer.write(spend('other', 'q')),
    ]);
    expect(answers.filter((a) => a && a !== 'mismatch')).toHaveLength(2);
    expect(answers.slice(1, 10)).toEqual(Array(9).fill(undefined));
    expect(fake.batches).toHaveLength(1);
    for (const b of fake.batches) expect(new Set(b.map((s) => s.nonceHash)).size).toBe(b.length);
  });

  it('a repeated nonce whose first call named another proof is tried again: its holder still spends it', async () => {
    const { fake, writer, spend } = setup();
    fake.nonces.set('n', 'holder');
    const [thief, holder, late] = await Promise.all([
      writer.write(spend('n', 'thief')),
      writer.write(spend('n', 'holder')),
      writer.write(spend('n', 'holder')),
    ]);
    expect(thief).toBe('mismatch');
    expect(holder).toMatchObject({ proof_id: 'holder' });
    expect(late).toBeUndefined();
    expect(fake.batches.map((b) => b.length)).toEqual([1, 1]);
  });

  it('a failed statement rejects only its own calls, with its error; the next statement runs', async () => {
    const { fake, writer, spend } = setup(true);
    for (const n of ['a', 'b', 'c', 'd']) fake.nonces.set(n, 'p');
    fake.failNext = new Error('connection lost');
    const a = writer.write(spend('a', 'p'));
    const b = writer.write(spend('b', 'p'));
    await new Promise((r) => setImmediate(r)); // a and b are in flight
    const c = writer.write(spend('c', 'p'));
    const d = writer.write(spend('d', 'p'));
    const settled = await Promise.allSettled([a, b, c, d]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect((settled[0] as PromiseRejectedResult).reason.message).toBe('connection lost');
    // nothing was spent by the failed statement: a and b still work
    await expect(writer.write(spend('a', 'p'))).resolves.toMatchObject({ proof_id: 'p' });
  });

  it('retries a deadlock (another replica locking the same nonces) before failing its calls', async () => {
    const { fake, writer, spend } = setup();
    fake.nonces.set('a', 'p');
    fake.failNext = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    await expect(writer.write(spend('a', 'p'))).resolves.toMatchObject({ proof_id: 'p' });
    expect(fake.batches).toHaveLength(2);
  });
});
