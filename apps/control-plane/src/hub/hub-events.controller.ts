import { CanaryChangedEvent, Subjects } from '@arbiter/contracts';
import { Controller, Inject } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { SignalRHub } from './signalr-hub';

/** Canary changes from any node (every replica receives them), pushed to this node's hub clients of the tenant. */
@Controller()
export class HubEventsController {
  constructor(@Inject(SignalRHub) private readonly hub: SignalRHub) {}

  @EventPattern(Subjects.CanaryChanged, { resume: true })
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
