import { Policies, RequirePolicy } from '@arbiter/auth';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { FLOW_EDGE_KINDS, FLOW_GRAPH_SCHEMA, FLOW_NODE_KINDS } from '@arbiter/rule-engine';
import { RuleSetQueries } from '../application/ruleset-queries';

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
  constructor(@Inject(RuleSetQueries) private readonly queries: RuleSetQueries) {}

  @Get()
  @RequirePolicy(Policies.Admin)
  @ApiOkResponse({
    description:
      '{ tenants: [{ tenantId, workflows, lastModified }] } (tenants with rule sets; cross-tenant, Admin)',
  })
  list() {
    return this.queries.tenants();
  }
}
