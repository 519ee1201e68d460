import { RuleSetChangedEvent, Subjects } from '@arbiter/contracts';
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { ChangeMetrics } from '../application/change-metrics';
import { RuleSetCache } from '../application/ruleset-cache';
import { SignalRHub } from '../../hub';

/**
 * Rule set change events from any node (no queue group: every replica receives every event): evict
 * this node's cache entry when the revision is newer, then push to this node's hub clients of the
 * tenant (in that order, so a client told of a change reads the new version). `resume`: on NATS the
 * events come from the JetStream stream, and after an outage this node reads on from the last one it
 * handled, so its dashboards get every change published meanwhile (in order, once each).
 */
@Controller()
export class RuleSetEventsController {
  constructor(
    @Inject(RuleSetCache) private readonly cache: RuleSetCache,
    @Inject(SignalRHub) private readonly hub: SignalRHub,
    @Inject(ChangeMetrics) private readonly metrics: ChangeMetrics,
  ) {}

  @EventPattern(Subjects.RuleSetChanged, { resume: true })
  onRuleSetChanged(@Payload() event: RuleSetChangedEvent) {
    this.metrics.receivedOne();
    this.cache.onChanged(event, 'bus');
    this.hub.broadcast('RuleSetChangeEvent', event, event.tenantId);
  }
}
