import { Policies, RequirePolicy } from '@arbiter/auth';
import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ContractsService } from '../application/contracts.service';

/** Contract metadata on the /api/v1/control-plane routes. */
@ApiTags('contracts')
@Controller('api/v1/control-plane')
export class ContractsController {
  constructor(@Inject(ContractsService) private readonly contracts: ContractsService) {}

  @Get('rule-contracts/:sourceType/:sourceCode')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      'Contract of a rule source (rule | decision-table | flow | workflow): { sourceType, sourceCode, resolvedFrom, sourceKey, composedFrom, request, response, nodes? }',
  })
  ruleContract(@Param('sourceType') sourceType: string, @Param('sourceCode') sourceCode: string) {
    return this.contracts.sourceContract(sourceType, sourceCode);
  }

  @Get('flow-contracts/:flowCode')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      'Flow contract: { flowCode, resolvedFrom, sourceKey, version, versionStatus, shape, request, response, nodes: [{ nodeId, kind, ruleCode, resolvedFrom, outputs }] }',
  })
  flowContract(@Param('flowCode') flowCode: string) {
    return this.contracts.flowContract(flowCode);
  }

  @Get('rule-flow/:flowCode/nodes/:nodeId/authoring-contract')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      'Node authoring contract: { flowCode, nodeId, ruleCode, requestScope, responseDelta, upstreamNodeIds, version, shape }',
  })
  authoringContract(@Param('flowCode') flowCode: string, @Param('nodeId') nodeId: string) {
    return this.contracts.authoringContract(flowCode, nodeId);
  }
}
