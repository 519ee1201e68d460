import { Module } from '@nestjs/common';
import { ExecutionModule } from '../execution';
import { RuleSetsModule } from '../rulesets';
import { ToolPolicies } from './tool-policies';
import { ToolsController } from './tools.controller';

/** Tool-protocol server: the six svc_ruleset_* tools over MCP (`POST /mcp`) and `POST /sse { method, args }`. */
@Module({
  imports: [RuleSetsModule, ExecutionModule],
  controllers: [ToolsController],
  providers: [ToolPolicies],
})
export class ToolsModule {}
