import type { WindowContents, WindowResult } from '@arbiter/event-windows';

const iso = (ms: number) => new Date(ms).toISOString();

/** A window as the API shows it: ISO times, and the contents (most recent first cut) when asked. */
export function windowView(w: WindowResult, contents?: WindowContents) {
  const view: Record<string, unknown> = {
    Key: w.key,
    Start: iso(w.start),
    End: iso(w.end),
    Count: w.count,
    Aggregates: w.aggregates,
  };
  if (contents) {
    view.Events = contents.events.map((e) => ({ Timestamp: iso(e.timestamp), Value: e.value ?? null }));
    view.Truncated = contents.total - contents.events.length;
  }
  return view;
}

/** A window as rule input facts: `window.count`, `window.sum`, … (zeros and nulls when empty). */
export function windowFacts(key: string, w: WindowResult | null, aggregates: readonly string[]) {
  const empty: Record<string, unknown> = {};
  for (const a of aggregates) empty[a] = a === 'count' || a === 'sum' || a === 'distinctCount' ? 0 : null;
  return {
    window: {
      key,
      start: w ? iso(w.start) : null,
      end: w ? iso(w.end) : null,
      count: w?.count ?? 0,
      ...(w ? w.aggregates : empty),
    },
  };
}
