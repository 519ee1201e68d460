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
