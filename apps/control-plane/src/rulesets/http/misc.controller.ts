import { Policies, RequirePolicy } from '@arbiter/auth';
import { RequestContext } from '@arbiter/platform';
import { FLOW_EDGE_KINDS, FLOW_GRAPH_SCHEMA, FLOW_NODE_KINDS } from '@arbiter/rule-engine';
import { Controller, Get, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { RuleSetsService } from '../application/rulesets.service';
import { HUB_PATHS, SignalRHub } from '../hub/signalr-hub';

@ApiTags('rule flow')
@Controller('api/v1/rule-flow')
export class RuleFlowController {
  @Get('contract')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: 'JSON Schema (2020-12) of the flow-graph rule set, plus node and edge kinds',
  })
  contract() {
    return {
      schema: FLOW_GRAPH_SCHEMA,
      nodeKinds: FLOW_NODE_KINDS,
      edgeKinds: FLOW_EDGE_KINDS,
      schemaVersion: 1,
    };
  }
}

@ApiTags('tenants')
@Controller('api/v1/tenants')
export class TenantsController {
  constructor(@Inject(RuleSetsService) private readonly service: RuleSetsService) {}

  @Get()
  @RequirePolicy(Policies.Admin)
  @ApiOkResponse({
    description:
      '{ tenants: [{ tenantId, workflows, lastModified }] } (tenants with rule sets; cross-tenant, Admin)',
  })
  list() {
    return this.service.tenants();
  }
}

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
