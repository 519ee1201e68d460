import { Module } from '@nestjs/common';
import { ExecutionModule } from '../execution/execution.module';
import { RuleSetsModule } from '../rulesets/rulesets.module';
import { ToolPolicies } from './tool-policies';
import { ToolsController } from './tools.controller';

/** Tool-protocol server: the six svc_ruleset_* tools over MCP (`POST /mcp`) and `POST /sse { method, args }`. */
@Module({
  imports: [RuleSetsModule, ExecutionModule],
  controllers: [ToolsController],
  providers: [ToolPolicies],
})
export class ToolsModule {}
