import { Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { parseVersion } from '../../shared';
import { CopilotDrafts } from '../application/copilot-drafts';
import { CopilotErrorFamily } from '../application/copilot-errors';
import { DraftRuleSet } from '../application/draft-ruleset';
import { DiscardDto, DraftRequestDto, ReviseDto } from './dto';
import { DiscardResultView, DraftResultView, ProvenanceResponse, ReviseResultView } from './views';

const WORKFLOW = ApiParam({
  name: 'workflow',
  description:
    "The workflow: 1-128 characters, letters, digits, '_', '.', '-', starting with a letter or digit.",
  schema: { type: 'string', example: 'loan-eligibility' },
});
const VERSION = ApiParam({
  name: 'version',
  description: 'The version number.',
  schema: { type: 'integer', minimum: 1, maximum: 999_999_999, example: 3 },
});

/**
 * Copilot drafts (`/api/v1/control-plane/copilot/rulesets/…`): a model drafts a rule set from a
 * description, it is saved as a Draft version with a tamper-evident provenance row; discard and revise
 * a draft; read a version's provenance. Admin for the changes, viewer for the read.
 */
@ApiTags('copilot')
@ApiErrorFamily(CopilotErrorFamily)
@Controller('api/v1/control-plane/copilot/rulesets')
export class CopilotController {
  constructor(
    @Inject(DraftRuleSet) private readonly drafting: DraftRuleSet,
    @Inject(CopilotDrafts) private readonly drafts: CopilotDrafts,
  ) {}

  @Post(':workflow/draft')
  @HttpCode(200)
  @RequirePolicy(Policies.Admin)
  @WORKFLOW
  @ApiOperation({
    summary: 'Draft a rule set with the configured model',
    description:
      'Asks the OpenAI-compatible chat endpoint (`Copilot:*`) for a rule set of the shape (its JSON schema ' +
      'as `response_format`), validates it, dry-runs it against the examples and saves it as the next ' +
      'Draft version with its provenance row (one transaction). 503 `COPILOT_NOT_CONFIGURED` without a ' +
      'model; 502 `COPILOT_MODEL_UNAVAILABLE`, `COPILOT_INVALID_MODEL_ANSWER`, `COPILOT_INVALID_DRAFT`; ' +
      '422 `COPILOT_EXAMPLES_FAILED`. Nothing is saved on any failure.',
  })
  @ApiBody({ type: DraftRequestDto })
  @ApiOkResponse({ type: DraftResultView, description: 'The saved Draft version and its provenance' })
  @ApiResponse({ status: 422, description: 'The draft fails the examples: `COPILOT_EXAMPLES_FAILED`' })
  @ApiResponse({
    status: 502,
    description:
      'The model failed: `COPILOT_MODEL_UNAVAILABLE`, `COPILOT_INVALID_MODEL_ANSWER`, `COPILOT_INVALID_DRAFT`',
  })
  @ApiResponse({
    status: 503,
    description: 'No model configured (`COPILOT_NOT_CONFIGURED`) or the policy decision point is down',
  })
  @ApiErrors(422, 502, 503)
  draft(@Param('workflow') workflow: string, @Body() body: DraftRequestDto) {
    return this.drafting.execute(workflow, body);
  }

  @Get(':workflow/:version/provenance')
  @RequirePolicy(Policies.Viewer)
  @WORKFLOW
  @VERSION
  @ApiOperation({
    summary: "A version's copilot provenance",
    description: '404 `PROVENANCE_NOT_FOUND` when the version was not drafted by the copilot.',
  })
  @ApiOkResponse({ type: ProvenanceResponse, description: 'The provenance row' })
  @ApiErrors(404, 503)
  provenance(@Param('workflow') workflow: string, @Param('version') version: string) {
    return this.drafts.provenanceOf(workflow, parseVersion(version));
  }

  @Post(':workflow/:version/discard')
  @HttpCode(200)
  @RequirePolicy(Policies.Admin)
  @WORKFLOW
  @VERSION
  @ApiOperation({
    summary: 'Discard a never-submitted copilot draft',
    description:
      'Draft → Rejected (terminal: never submitted or activated; audited `REJECT`); the provenance row is ' +
      'kept. 409 `NOT_A_COPILOT_DRAFT`, `DRAFT_WAS_SUBMITTED`, `INVALID_STATE_TRANSITION` (not a Draft).',
  })
  @ApiBody({ type: DiscardDto, required: false })
  @ApiOkResponse({ type: DiscardResultView, description: 'The discarded version' })
  @ApiErrors(404, 409, 503)
  discard(@Param('workflow') workflow: string, @Param('version') version: string, @Body() body: DiscardDto) {
    return this.drafts.discard(workflow, parseVersion(version), body?.reason);
  }

  @Post(':workflow/:version/revise')
  @HttpCode(200)
  @RequirePolicy(Policies.Admin)
  @WORKFLOW
  @VERSION
  @ApiOperation({
    summary: "Save a person's edit of a copilot draft",
    description:
      'Saves `ruleSet` as the next Draft version (validated and audited like any save) with a provenance ' +
      "row carrying the copilot draft's AI original; its activation records whether the content differs. " +
      '409 `NOT_A_COPILOT_DRAFT`; 400 `INVALID_RULESET`.',
  })
  @ApiBody({ type: ReviseDto })
  @ApiOkResponse({ type: ReviseResultView, description: 'The new Draft version' })
  @ApiErrors(404, 409, 503)
  revise(@Param('workflow') workflow: string, @Param('version') version: string, @Body() body: ReviseDto) {
    return this.drafts.revise(workflow, parseVersion(version), body.ruleSet, body.detail);
  }
}
