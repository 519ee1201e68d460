import { LATE, WindowContents, WindowEngine, WindowResult } from '@arbiter/event-windows';
import { AppError } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { EventWindowsSettings } from '../event-windows.settings';
import type { EventBatchBody } from '../http/dto';
import { windowDefinition } from './config-model';
import { isoTimestamp, readBatchSliced } from './event-batch';
import { EventWindowConfigService } from './event-window-config.service';
import { ascii, JsonBytesWriter } from './json-bytes-writer';
import { EventWindowMetrics } from './metrics';

/**
 * Events of each window listed when the request does not say (`MaxContents`): the most recent few, the rest
 * counted in `Truncated`. Every event of a batch lists its window, so the contents are most of an answer
 * (10,000 events: 3.8 MB at 3, 7 MB at 10); a caller who wants more asks, up to `EventWindows:MaxContents`.
 */
export const DEFAULT_CONTENTS = 3;
/** Longest stretch (ms) a simulate holds the event loop before handing it back (a large batch). */
const SLICE_MS = 8;
/** Events between two looks at the clock. */
const CHECK_EVERY = 512;

const RESULTS = ascii('{"Results":[');
const INDEX = ascii('{"Index":');
const KEY = ascii(',"Key":');
const TIMESTAMP = ascii(',"Timestamp":');
const ACCEPTED = ascii(',"Status":"Accepted"');
const LATE_STATUS = ascii(',"Status":"Late"}');
const WINDOW = ascii(',"Window":');
const CLOSED = ascii('],"Closed":[');
const PROCESSED = ascii('],"Processed":');
const ACCEPTED_COUNT = ascii(',"Accepted":');
const LATE_COUNT = ascii(',"Late":');
const EVICTED_COUNT = ascii(',"Evicted":');

/**
 * `POST /{id}/simulate`: runs a batch through a fresh engine of the configuration and reports, per event,
 * its status and (`OnUpdate`) its window with contents and aggregates; closed windows (`OnClose`, or any
 * tumbling/session window closed by the batch or by `Now`); late and evicted counts. Nothing is stored and
 * the live windows are not touched. A large batch hands the event loop back every `SLICE_MS`.
 */
@Injectable()
export class EventWindowSimulationService {
  constructor(
    @Inject(EventWindowConfigService) private readonly configs: EventWindowConfigService,
    @Inject(EventWindowsSettings) private readonly settings: EventWindowsSettings,
    @Inject(EventWindowMetrics) private readonly metrics: EventWindowMetrics,
  ) {}

  /** The batch result (`BatchResultView`) as the bytes of its JSON text. */
  async simulate(id: string, body: EventBatchBody): Promise<Buffer> {
    const config = await this.configs.loadForSimulate(id);
    const batch = await readBatchSliced(body.Events, config, this.settings.maxBatchEvents, SLICE_MS);
    const now = body.Now === undefined ? undefined : isoTimestamp(body.Now);
    if (now !== undefined && !Number.isFinite(now))
      throw AppError.validation([{ field: 'Now', message: 'not an ISO 8601 date-time with a zone' }]);
    const limit = Math.min(body.MaxContents ?? DEFAULT_CONTENTS, this.settings.maxContents);
    const onUpdate = config.emitMode === 'OnUpdate';
    const n = batch.keys.length;
    // the answer is written as JSON bytes as it is produced (see `JsonBytesWriter`): no object per event
    const out = new JsonBytesWriter(Math.min(n * (onUpdate ? 240 + 56 * limit : 100), 64 * 1024 * 1024));
    const closed = new JsonBytesWriter(1024);
    let closedCount = 0;
    const onClose = (w: WindowResult, contents: (n: number) => WindowContents) => {
      if (closedCount++) closed.byte(0x2c);
      closed.window(w, contents(limit));
      this.metrics.evaluated('simulate', w.count);
    };
    const engine = new WindowEngine(windowDefinition(config), onClose);
    // each event's window, written at once: one object, reused (see `lastWindowInto`)
    const w = { key: '', start: 0, end: 0, count: 0, aggregates: {}, contents: { events: [], total: 0 } };
    out.raw(RESULTS);
    let sliceStart = performance.now();
    for (let i = 0; i < n; i++) {
      if (i % CHECK_EVERY === CHECK_EVERY - 1 && performance.now() - sliceStart > SLICE_MS) {
        await nextTurn(); // the engine and the writers are this request's own: nothing else touches them
        sliceStart = performance.now();
      }
      const key = batch.keys[i];
      const t = batch.timestamps[i];
      const status = engine.add(key, t, batch.values[i]);
      if (i) out.byte(0x2c);
      const keyBytes = out.text(key);
      out.raw(INDEX).number(i).raw(KEY).raw(keyBytes).raw(TIMESTAMP).time(t);
      if (status === LATE) {
        out.raw(LATE_STATUS);
        continue;
      }
      out.raw(ACCEPTED);
      if (onUpdate && engine.lastWindowInto(w, limit)) {
        out.raw(WINDOW);
        out.window(w, w.contents, keyBytes);
        this.metrics.evaluated('simulate', w.count);
      }
      out.byte(0x7d);
    }
    if (now !== undefined) engine.advance(now);
    const c = engine.counters;
    this.metrics.processed('simulate', c.accepted, c.late);
    out.raw(CLOSED).raw(closed.bytes()).raw(PROCESSED).number(n);
    out.raw(ACCEPTED_COUNT).number(c.accepted).raw(LATE_COUNT).number(c.late);
    out.raw(EVICTED_COUNT).number(c.evicted).byte(0x7d);
    return out.bytes();
  }
}
