import { Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily } from '@arbiter/platform';
import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { FLOW_EDGE_KINDS, FLOW_GRAPH_SCHEMA, FLOW_NODE_KINDS } from '@arbiter/rule-engine';
import { RuleSetErrorFamily } from '../application/ruleset-errors';
import { RuleSetQueries } from '../application/ruleset-queries';
import { ApiRuleSetErrors } from './error-cases';
import { RuleFlowContractView, TenantListView } from './views';

@ApiTags('rule flow')
@ApiErrorFamily(RuleSetErrorFamily)
@Controller('api/v1/rule-flow')
export class RuleFlowController {
  @Get('contract')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'The flow-graph contract for a flow designer',
    description:
      'The JSON Schema (draft 2020-12) of the flow-graph rule set, with its node and edge kinds. Policy: ' +
      '`cp.viewer`.',
  })
  @ApiOkResponse({ type: RuleFlowContractView, description: 'The flow-graph contract' })
  @ApiRuleSetErrors()
  contract(): RuleFlowContractView {
    return {
      schema: FLOW_GRAPH_SCHEMA,
      nodeKinds: FLOW_NODE_KINDS,
      edgeKinds: FLOW_EDGE_KINDS,
      schemaVersion: 1,
    };
  }
}

@ApiTags('tenants')
@ApiErrorFamily(RuleSetErrorFamily)
@Controller('api/v1/tenants')
export class TenantsController {
  constructor(@Inject(RuleSetQueries) private readonly queries: RuleSetQueries) {}

  @Get()
  @RequirePolicy(Policies.Admin)
  @ApiOperation({
    summary: 'List the tenants that have rule sets',
    description: "A cross-tenant read, with each tenant's workflow count. Policy: `cp.admin`.",
  })
  @ApiOkResponse({ type: TenantListView, description: 'The tenants with rule sets' })
  @ApiRuleSetErrors()
  list(): Promise<TenantListView> {
    return this.queries.tenants();
  }
}
