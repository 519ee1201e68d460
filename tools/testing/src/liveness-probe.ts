/**
 * Runs `work` while probing `GET {baseUrl}/health/live` every `everyMs`: how long the service kept a
 * probe waiting while the work ran. A probe's wait counts from when it was due (start + k × everyMs), so
 * an event loop held by the work (the probe's timer fires late, or its answer is late) shows in full.
 */
export interface ProbeReport<T> {
  result: T;
  /** how long the work took (ms) */
  elapsedMs: number;
  /** the longest wait of a probe, from when it was due to its answer (ms) */
  worstProbeMs: number;
  probes: number;
}

export async function whileProbingLiveness<T>(
  baseUrl: string,
  work: () => Promise<T>,
  everyMs = 20,
): Promise<ProbeReport<T>> {
  const waits: number[] = [];
  const pending: Promise<void>[] = [];
  const started = performance.now();
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  // each probe is due everyMs after the previous one was sent; a held event loop makes it late
  const tick = (due: number) => {
    if (done) return;
    const sent = performance.now();
    const late = Math.max(0, sent - due);
    pending.push(
      fetch(`${baseUrl}/health/live`).then(
        async (res) => {
          await res.arrayBuffer();
          waits.push(res.status === 200 ? late + performance.now() - sent : Infinity);
        },
        () => {
          waits.push(Infinity);
        },
      ),
    );
    timer = setTimeout(() => tick(sent + everyMs), everyMs);
  };
  timer = setTimeout(() => tick(started + everyMs), everyMs);
  let result: T;
  try {
    result = await work();
  } finally {
    done = true;
    clearTimeout(timer);
  }
  const elapsedMs = performance.now() - started;
  await Promise.all(pending);
  return { result, elapsedMs, worstProbeMs: Math.max(0, ...waits), probes: waits.length };
}

/**
 * The limit a probe report is held to: `allowanceMs` beyond the idle floor, the worst wait of the same probe
 * over `idleMs` with nothing running. The floor is measured once before the work and, only when a report is
 * over the limit, once more right after it: a shared machine whose load rose meanwhile is not the work's
 * doing, while work that held the event loop still fails (the floor after it is low again).
 */
export class LivenessBudget {
  private constructor(
    private readonly baseUrl: string,
    private readonly allowanceMs: number,
    readonly floorMs: number,
    private readonly idleMs: number,
  ) {}

  static async measure(baseUrl: string, allowanceMs: number, idleMs = 2000): Promise<LivenessBudget> {
    const floor = await idleFloor(baseUrl, idleMs);
    return new LivenessBudget(baseUrl, allowanceMs, floor, idleMs);
  }

  /** The limit for a report whose worst wait was `worstProbeMs` (`extraMs` more for a known cost). */
  async limitFor(worstProbeMs: number, extraMs = 0): Promise<number> {
    const limit = this.allowanceMs + this.floorMs + extraMs;
    if (worstProbeMs < limit) return limit;
    const floorNow = await idleFloor(this.baseUrl, this.idleMs / 2);
    return this.allowanceMs + Math.max(this.floorMs, floorNow) + extraMs;
  }
}

async function idleFloor(baseUrl: string, idleMs: number): Promise<number> {
  const idle = await whileProbingLiveness(baseUrl, () => new Promise((r) => setTimeout(r, idleMs)));
  return idle.worstProbeMs;
}
