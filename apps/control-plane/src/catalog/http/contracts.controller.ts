import { Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors } from '@arbiter/platform';
import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ContractsService } from '../application/contracts.service';
import { CatalogErrorFamily } from '../application/errors';
import { ComposedFromView, FlowContractView, NodeAuthoringContractView, SourceContractView } from './views';

const FLOW_CODE = { name: 'flowCode', description: 'The flow (workflow name).', example: 'loan-approval' };

/** Contract metadata on the /api/v1/control-plane routes. */
@ApiTags('contracts')
@ApiErrorFamily(CatalogErrorFamily)
@ApiExtraModels(ComposedFromView)
@Controller('api/v1/control-plane')
export class ContractsController {
  constructor(@Inject(ContractsService) private readonly contracts: ContractsService) {}

  @Get('rule-contracts/:sourceType/:sourceCode')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Contract metadata of a rule source',
    description:
      "Resolved in the spec's order: a manifest, composition across the workflows, a decision table stored " +
      'in the decisions service, then the static fallback (`resolvedFrom` says which).',
  })
  @ApiParam({
    name: 'sourceType',
    description: 'The kind of source (case-insensitive; `workflow` is `flow`).',
    schema: { type: 'string', enum: ['rule', 'decision-table', 'flow', 'workflow'] },
  })
  @ApiParam({
    name: 'sourceCode',
    description: 'Rule code, decision table name or flow.',
    example: 'CREDIT_SCORE',
  })
  @ApiOkResponse({ description: 'The contract', type: SourceContractView })
  @ApiErrors(400, 404)
  ruleContract(@Param('sourceType') sourceType: string, @Param('sourceCode') sourceCode: string) {
    return this.contracts.sourceContract(sourceType, sourceCode);
  }

  @Get('flow-contracts/:flowCode')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Contract metadata of a flow',
    description: 'The flow input, every fact it produces, and the facts of each node.',
  })
  @ApiParam(FLOW_CODE)
  @ApiOkResponse({ description: 'The flow contract', type: FlowContractView })
  @ApiErrors(400, 404)
  flowContract(@Param('flowCode') flowCode: string) {
    return this.contracts.flowContract(flowCode);
  }

  @Get('rule-flow/:flowCode/nodes/:nodeId/authoring-contract')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'Node authoring contract',
    description:
      "`requestScope` (the flow input plus the upstream nodes' facts) and `responseDelta` (only the node's " +
      'own facts) of one node of the active (else latest) version.',
  })
  @ApiParam(FLOW_CODE)
  @ApiParam({ name: 'nodeId', description: 'The node id.', example: 'score' })
  @ApiOkResponse({ description: 'The node authoring contract', type: NodeAuthoringContractView })
  @ApiErrors(400, 404)
  authoringContract(@Param('flowCode') flowCode: string, @Param('nodeId') nodeId: string) {
    return this.contracts.authoringContract(flowCode, nodeId);
  }
}
