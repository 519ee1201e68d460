import { RuleSetChangedEvent, Subjects } from '@arbiter/contracts';
import { EventBus } from '@arbiter/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RuleStoreSettings } from '../rulesets.settings';
import { ChangeMetrics } from './change-metrics';
import { RuleSetCache } from './ruleset-cache';

/**
 * After commit (the database is the truth), a change is announced on `arbiter.ruleset.changed` and,
 * as a second publish, on the subject named by `RuleStoreConfigs:RuleChangeChannel`. The local cache
 * is evicted at once; other nodes evict when the event arrives (or at the next revision poll). A bus
 * failure is logged and never fails the request: the change is committed, the poll catches up.
 */
@Injectable()
export class ChangePublisher {
  private readonly logger = new Logger('RuleSetChanges');

  constructor(
    @Inject(EventBus) private readonly bus: EventBus,
    @Inject(RuleStoreSettings) private readonly store: RuleStoreSettings,
    @Inject(RuleSetCache) private readonly cache: RuleSetCache,
    @Inject(ChangeMetrics) private readonly metrics: ChangeMetrics,
  ) {}

  async publish(event: RuleSetChangedEvent): Promise<void> {
    this.cache.onChanged(event, 'local');
    const channel = this.store.ruleChangeChannel.trim();
    const subjects: string[] = [Subjects.RuleSetChanged];
    if (channel && channel !== Subjects.RuleSetChanged) subjects.push(channel);
    for (const subject of subjects) {
      try {
        await this.bus.publish(subject, event as never, { tenantId: event.tenantId });
        this.metrics.publishedOne();
      } catch (error) {
        this.logger.error({
          msg: 'rule set change not published (the revision poll will catch up)',
          subject,
          err: String(error),
        });
      }
    }
  }

  /** Announces one change of a workflow by `actor`, stamped now. */
  announce(
    tenantId: string,
    workflowName: string,
    version: number | null,
    change: RuleSetChangedEvent['change'],
    revision: number,
    actor: string,
  ): Promise<void> {
    return this.publish({
      workflowName,
      tenantId,
      version,
      change,
      revision,
      actor,
      occurredAt: new Date().toISOString(),
    });
  }
}
