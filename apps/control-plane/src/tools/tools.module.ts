import { Module } from '@nestjs/common';
import { CopilotModule } from '../copilot';
import { ExecutionModule } from '../execution';
import { RuleSetsModule } from '../rulesets';
import { ToolPolicies } from './tool-policies';
import { ToolsController } from './tools.controller';

/** Tool-protocol server: the svc_ruleset_* tools (six of spec 1 and the copilot's svc_ruleset_draft) over MCP (`POST /mcp`) and `POST /sse { method, args }`. */
@Module({
  imports: [RuleSetsModule, ExecutionModule, CopilotModule],
  controllers: [ToolsController],
  providers: [ToolPolicies],
})
export class ToolsModule {}
