import { CommonErrorCodes } from '@arbiter/contracts';
import { ToolProtocolController, ToolProtocolServer } from '@arbiter/platform';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { Controller, Inject } from '@nestjs/common';
import { BUILD_VERSION } from '../../version';
import { DecisionTableAuthoringService } from '../application/decision-table-authoring.service';
import { DecisionTableEvaluationService } from '../application/decision-table-evaluation.service';
import { decisionTableTools } from './decision-table-tools';
import { RequireDecisionsAccess } from '../../auth';

/**
 * Tool-protocol server of spec 2 (the `svc_decision_table_*` tools) on the platform's server:
 * `POST /mcp` (MCP Streamable HTTP, stateless), and the plain call `{ method, args }` at `POST /sse` and
 * at `POST /mcp` without `jsonrpc` → `200 { result }` or `{ error, code, traceId }` with the REST
 * route's status. This service keeps its codes: 404 `UNKNOWN_TOOL`, 400 `VALIDATION_FAILED` for
 * arguments.
 */
@RequireDecisionsAccess('viewer')
@Controller()
export class McpController extends ToolProtocolController {
  constructor(
    @Inject(DecisionTableAuthoringService) tables: DecisionTableAuthoringService,
    @Inject(DecisionTableEvaluationService) evaluation: DecisionTableEvaluationService,
  ) {
    super(
      new ToolProtocolServer({
        name: 'arbiter-decisions',
        version: BUILD_VERSION,
        tools: decisionTableTools(tables, evaluation),
        sdk: { McpServer, StreamableHTTPServerTransport },
        errors: { unknownToolStatus: 404, invalidArgumentsCode: CommonErrorCodes.ValidationFailed },
      }),
    );
  }
}
