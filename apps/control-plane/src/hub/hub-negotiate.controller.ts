import { Policies, RequirePolicy } from '@arbiter/auth';
import { RequestContext } from '@arbiter/platform';
import { Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HUB_PATHS, SignalRHub } from './signalr-hub';

/** `POST /hubs/{rule-set-change|ruleset-changes}/negotiate` of the SignalR hub. */
@ApiTags('push hub')
@Controller('hubs')
export class HubNegotiateController {
  constructor(@Inject(SignalRHub) private readonly hub: SignalRHub) {}

  @Post(HUB_PATHS.map((p) => `${p.replace('/hubs/', '')}/negotiate`))
  @RequirePolicy(Policies.Viewer)
  @HttpCode(200)
  negotiate(@Req() req: { url: string }) {
    const path = req.url.split('?')[0].replace(/\/negotiate$/, '');
    const hub = HUB_PATHS.find((p) => p === path) ?? HUB_PATHS[0];
    return this.hub.negotiate(hub, RequestContext.tenantId());
  }
}
