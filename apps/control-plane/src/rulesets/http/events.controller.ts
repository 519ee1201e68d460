import { CanaryChangedEvent, RuleSetChangedEvent, Subjects } from '@arbiter/contracts';
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ChangeMetrics } from '../application/change-metrics';
import { RuleSetCache } from '../application/ruleset-cache';
import { SignalRHub } from '../hub/signalr-hub';

/**
 * Change events from any node (no queue group: every replica receives every event): evict this
 * node's cache entry when the revision is newer, and push to this node's hub clients of the tenant.
 */
@Controller()
export class RuleSetEventsController {
  constructor(
    @Inject(RuleSetCache) private readonly cache: RuleSetCache,
    @Inject(SignalRHub) private readonly hub: SignalRHub,
    @Inject(ChangeMetrics) private readonly metrics: ChangeMetrics,
  ) {}

  @EventPattern(Subjects.RuleSetChanged)
  onRuleSetChanged(@Payload() event: RuleSetChangedEvent) {
    this.metrics.receivedOne();
    this.cache.onChanged(event, 'bus');
    this.hub.broadcast('RuleSetChangeEvent', event, event.tenantId);
  }

  @EventPattern(Subjects.CanaryChanged)
  onCanaryChanged(@Payload() event: CanaryChangedEvent) {
    this.hub.broadcast(
      'CanaryStateChanged',
      {
        workflowName: event.workflowName,
        status: event.status,
        version: event.version,
        rolloutId: event.rolloutId,
        tenantId: event.tenantId,
        occurredAt: event.occurredAt,
      },
      event.tenantId,
    );
  }
}
