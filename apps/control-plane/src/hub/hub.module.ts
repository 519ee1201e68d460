import { Module } from '@nestjs/common';
import { HubEventsController } from './hub-events.controller';
import { HubNegotiateController } from './hub-negotiate.controller';
import { SignalRHub } from './signalr-hub';

/**
 * The SignalR push hub: clients of a tenant receive its rule set changes (pushed by the rule sets
 * feature after its cache eviction) and canary state changes.
 */
@Module({
  controllers: [HubNegotiateController, HubEventsController],
  providers: [SignalRHub],
  exports: [SignalRHub],
})
export class HubModule {}
