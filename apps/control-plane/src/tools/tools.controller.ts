import { ToolProtocolController, ToolProtocolServer } from '@arbiter/platform';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Policies } from '@arbiter/auth';
import { Controller, Inject } from '@nestjs/common';
import { copilotTools, DraftRuleSet } from '../copilot';
import { DryRunService } from '../execution';
import { ActivateVersion, RuleSetQueries, SaveRuleSet } from '../rulesets';
import { BUILD_VERSION } from '../version';
import { ruleSetTools } from './ruleset-tools';
import { ToolPolicies } from './tool-policies';

/**
 * The control plane's tool-protocol server (the platform's): `POST /mcp` (MCP Streamable HTTP,
 * stateless), the plain call `{ method, args }` at `POST /sse` (and at `POST /mcp` without `jsonrpc`)
 * → `200 { result }`, or `{ error, code, traceId }`: 400 `UNKNOWN_TOOL`, 400 `INVALID_TOOL_ARGUMENTS`
 * (details `args.<field>`), 401/403 as the HTTP routes, and the service's own codes.
 */
@Controller()
export class ToolsController extends ToolProtocolController {
  constructor(
    @Inject(RuleSetQueries) queries: RuleSetQueries,
    @Inject(SaveRuleSet) saving: SaveRuleSet,
    @Inject(ActivateVersion) activation: ActivateVersion,
    @Inject(DryRunService) dryRuns: DryRunService,
    @Inject(ToolPolicies) policies: ToolPolicies,
    @Inject(DraftRuleSet) drafting: DraftRuleSet,
  ) {
    super(
      new ToolProtocolServer({
        name: 'arbiter-control-plane',
        version: BUILD_VERSION,
        tools: [
          ...ruleSetTools({ queries, saving, activation }, dryRuns, policies),
          ...copilotTools(drafting, policies.require(Policies.Admin, 'svc_ruleset_draft')),
        ],
        sdk: { McpServer, StreamableHTTPServerTransport },
      }),
    );
  }
}
