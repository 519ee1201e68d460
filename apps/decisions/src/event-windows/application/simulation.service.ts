import { LATE, WindowContents, WindowEngine, WindowResult } from '@arbiter/event-windows';
import { Inject, Injectable } from '@nestjs/common';
import { EventWindowsSettings } from '../event-windows.settings';
import type { EventBatchBody } from '../http/dto';
import { windowDefinition } from './config-model';
import { isoTimestamp, readBatch } from './event-batch';
import { EventWindowConfigService } from './event-window-config.service';
import { EventWindowMetrics } from './metrics';
import { JsonTextWriter } from './json-text-writer';
import { iso, windowJson } from './window-views';
import { AppError } from '@arbiter/platform';

const DEFAULT_CONTENTS = 10;

/**
 * `POST /{id}/simulate`: runs a batch through a fresh engine of the configuration and reports, per event,
 * its status and (`OnUpdate`) its window with contents and aggregates; closed windows (`OnClose`, or any
 * tumbling/session window closed by the batch or by `Now`); late and evicted counts. Nothing is stored and
 * the live windows are not touched.
 */
@Injectable()
export class EventWindowSimulationService {
  constructor(
    @Inject(EventWindowConfigService) private readonly configs: EventWindowConfigService,
    @Inject(EventWindowsSettings) private readonly settings: EventWindowsSettings,
    @Inject(EventWindowMetrics) private readonly metrics: EventWindowMetrics,
  ) {}

  /** The batch result (`BatchResultView`) as JSON text. */
  async simulate(id: string, body: EventBatchBody): Promise<string> {
    const config = await this.configs.load(id);
    const batch = readBatch(body.Events, config, this.settings.maxBatchEvents);
    const now = body.Now === undefined ? undefined : isoTimestamp(body.Now);
    if (now !== undefined && !Number.isFinite(now))
      throw AppError.validation([{ field: 'Now', message: 'not an ISO 8601 date-time with a zone' }]);
    const limit = Math.min(body.MaxContents ?? DEFAULT_CONTENTS, this.settings.maxContents);
    const closed: string[] = [];
    const onClose = (w: WindowResult, contents: (n: number) => WindowContents) => {
      closed.push(windowJson(w, contents(limit)));
      this.metrics.evaluated('simulate', w.count);
    };
    const engine = new WindowEngine(windowDefinition(config), onClose);
    const onUpdate = config.emitMode === 'OnUpdate';
    // the answer is written as JSON text as it is produced (see `JsonTextWriter`): no object per event
    const out = new JsonTextWriter();
    out.write('{"Results":[');
    for (let i = 0; i < batch.keys.length; i++) {
      const key = batch.keys[i];
      const t = batch.timestamps[i];
      const status = engine.add(key, t, batch.values[i]);
      let item = `${i ? ',' : ''}{"Index":${i},"Key":${JSON.stringify(key)},"Timestamp":"${iso(t)}","Status":"${status === LATE ? 'Late' : 'Accepted'}"`;
      if (status !== LATE && onUpdate) {
        const w = engine.lastWindow()!;
        item += `,"Window":${windowJson(w, engine.lastContents(limit))}`;
        this.metrics.evaluated('simulate', w.count);
      }
      out.write(item + '}');
    }
    if (now !== undefined) engine.advance(now);
    const c = engine.counters;
    this.metrics.processed('simulate', c.accepted, c.late);
    out.write(`],"Closed":[${closed.join(',')}],"Processed":${batch.keys.length},`);
    out.write(`"Accepted":${c.accepted},"Late":${c.late},"Evicted":${c.evicted}}`);
    return out.text();
  }
}
