import { CanaryChangedEvent, Subjects } from '@arbiter/contracts';
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { CanaryRouter } from '../application/canary-router';

/**
 * `arbiter.canary.changed` from any node (every replica receives it): refresh this node's router.
 * `resume`: after a NATS outage the node reads on from the last event it handled (JetStream).
 */
@Controller()
export class CanaryEventsController {
  constructor(@Inject(CanaryRouter) private readonly router: CanaryRouter) {}

  @EventPattern(Subjects.CanaryChanged, { resume: true })
  onCanaryChanged(@Payload() event: CanaryChangedEvent) {
    this.router.onChanged(event);
  }
}
