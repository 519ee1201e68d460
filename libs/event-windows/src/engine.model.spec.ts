import fc from 'fast-check';
import { ReferenceWindows } from '../test/reference-window';
import {
  ACCEPTED,
  AGGREGATES,
  LATE,
  WindowDefinition,
  WindowEngine,
  WindowResult,
  WINDOW_TYPES,
} from './index';

/**
 * Model-based tests: random definitions and random event streams with injected disorder (events up to
 * 60 ms behind the stream's time, some past the allowed lateness), interleaved with clock advances, run
 * through the engine and through the naive reference. Every answer must be the same: late or not, the
 * event's window (bounds, count, every aggregate), the fast count/sum, and the windows closed at each step.
 */
const definitionArb = fc.record({
  type: fc.constantFrom(...WINDOW_TYPES),
  sizeMs: fc.integer({ min: 1, max: 50 }),
  ttlExtra: fc.integer({ min: 0, max: 100 }),
  // no lateness half the time: the sliding window's fast path (in order, lateness 0) is taken then
  allowedLatenessMs: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 30 })),
  retainValues: fc.boolean(),
  epoch: fc.integer({ min: 0, max: 10_000_000 }),
});

const valueArb = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -100, max: 100 }) },
  { weight: 1, arbitrary: fc.constantFrom('x', 'y', '7', null, { a: 1 }) },
);

const opArb = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      key: fc.constantFrom('a', 'b', 'c', 'd'),
      step: fc.integer({ min: 0, max: 15 }),
      disorder: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 60 })),
      value: valueArb,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      step: fc.integer({ min: 0, max: 80 }),
    }),
  },
);

const byKeyAndStart = (a: WindowResult, b: WindowResult) =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.start - b.start;

describe('WindowEngine against the naive reference (fast-check)', () => {
  it('gives the same answers on random streams with disorder, lateness, clock advances and expiry', () => {
    fc.assert(
      fc.property(definitionArb, fc.array(opArb, { minLength: 1, maxLength: 200 }), (d, ops) => {
        const definition: WindowDefinition = {
          type: d.type,
          sizeMs: d.sizeMs,
          timeToLiveMs: d.sizeMs + d.ttlExtra,
          allowedLatenessMs: d.allowedLatenessMs,
          aggregates: AGGREGATES,
          retainValues: d.retainValues,
        };
        let closed: WindowResult[] = [];
        const engine = new WindowEngine(definition, (w) => closed.push(w));
        const reference = new ReferenceWindows(definition);
        // one object for every event's window (`lastWindowInto`), as a large batch reads them
        const reused = {
          key: '',
          start: 0,
          end: 0,
          count: 0,
          aggregates: {},
          contents: { events: [], total: 0 },
        };
        let time = d.epoch;
        for (const op of ops) {
          closed = [];
          time += op.step;
          if (op.kind === 'advance') {
            engine.advance(time);
            expect(closed.sort(byKeyAndStart)).toEqual(reference.advance(time).sort(byKeyAndStart));
            continue;
          }
          const t = time - op.disorder;
          const status = engine.add(op.key, t, op.value);
          const expected = reference.add(op.key, t, op.value);
          expect(status).toBe(expected.late ? LATE : ACCEPTED);
          if (!expected.late) {
            expect(engine.lastWindow()).toEqual(expected.window);
            const limit = op.step % 4;
            const contents = engine.lastContents(limit);
            expect(engine.lastWindowInto(reused, limit)).toBe(true);
            expect(JSON.parse(JSON.stringify(reused))).toEqual(
              JSON.parse(JSON.stringify({ ...expected.window, contents })),
            );
            expect(engine.lastCount).toBe(expected.window!.count);
            expect(engine.lastSum).toBe(expected.window!.aggregates.sum);
          }
          expect(closed).toEqual(expected.closed);
        }
        expect(engine.counters.late).toBe(reference.late);
      }),
      { numRuns: Number(process.env.FC_RUNS ?? 400) },
    );
  });
});
