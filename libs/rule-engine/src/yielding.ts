/**
 * Work over many items (10,000 rules) done in slices, giving the event loop back between them, so a large
 * document is checked or compiled without holding other requests. Small inputs run in one go.
 */

/** Longest stretch (ms) one slice holds the event loop. */
export const SLICE_MS = 4;

/** How many items are handled between two looks at the clock. */
const CLOCK_EVERY = 32;

const now: () => number = () => performance.now();

/** Lets everything waiting on the event loop (I/O, timers) run before going on. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** `items.forEach(body)`, handing the event loop back every `SLICE_MS` of work. */
export async function forEachYielding<T>(
  items: readonly T[],
  body: (item: T, index: number) => void,
  sliceMs = SLICE_MS,
): Promise<void> {
  let sliceEnd = now() + sliceMs;
  for (let i = 0; i < items.length; i++) {
    body(items[i], i);
    if (i % CLOCK_EVERY === CLOCK_EVERY - 1 && now() > sliceEnd) {
      await yieldToEventLoop();
      sliceEnd = now() + sliceMs;
    }
  }
}

/**
 * Work written as a generator that pauses (`yield`) every STEP_EVERY items: `runToEnd` runs it in one go,
 * `runSliced` hands the event loop back whenever a slice has held it SLICE_MS. One code path for both.
 */
export type Steps<T> = Generator<void, T, void>;

/** Items (rows, columns) between two pauses of a `Steps` generator. */
export const STEP_EVERY = 64;

export function runToEnd<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

export async function runSliced<T>(steps: Steps<T>, sliceMs = SLICE_MS): Promise<T> {
  let sliceEnd = now() + sliceMs;
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (now() > sliceEnd) {
      await yieldToEventLoop();
      sliceEnd = now() + sliceMs;
    }
  }
}
