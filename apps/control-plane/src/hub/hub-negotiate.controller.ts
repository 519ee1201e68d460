import { AuthErrorCodes, Policies, RequirePolicy } from '@arbiter/auth';
import { ControlPlaneHubPaths } from '@arbiter/contracts';
import { ApiErrorFamily, defineErrorFamily, RequestContext } from '@arbiter/platform';
import { Controller, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiQuery, ApiTags } from '@nestjs/swagger';
import { SignalRHub } from './signalr-hub';

/** Both documented spellings of the hub path; each serves RuleSetChangeEvent and CanaryStateChanged. */
const [RULE_SET_CHANGE_HUB, RULESET_CHANGES_HUB] = ControlPlaneHubPaths;
const negotiatePath = (hub: string) => `${hub.replace(/^\/hubs\//, '')}/negotiate`;

/** The negotiate route answers only the platform's and authentication's codes. */
export const PushHubErrorFamily = defineErrorFamily({
  name: 'PushHubError',
  envelope: 'trace',
  description: 'A push hub failure: `{ error, code, traceId }`.',
  codes: [AuthErrorCodes],
});

export class HubTransportView {
  @ApiProperty({ enum: ['WebSockets'] })
  transport!: 'WebSockets';

  @ApiProperty({ type: 'string', enum: ['Text'], isArray: true })
  transferFormats!: 'Text'[];
}

/** The SignalR negotiate answer (negotiateVersion 1). */
export class HubNegotiationView {
  @ApiProperty({ format: 'uuid' })
  connectionId!: string;

  @ApiProperty({
    description: 'Pass as `?id=` on the WebSocket upgrade of the hub path, within 60 seconds.',
    example: 'q3V1b2tIbWx0T2JtZ0ZzQ3lYb2JqZ2l3',
  })
  connectionToken!: string;

  @ApiProperty({ type: 'integer', enum: [1] })
  negotiateVersion!: 1;

  @ApiProperty({ type: HubTransportView, isArray: true })
  availableTransports!: HubTransportView[];
}

const NEGOTIATE = {
  description:
    "The first step of a `@microsoft/signalr` client: binds the connection to the caller's tenant, then the " +
    'client upgrades `…?id=<connectionToken>` to a WebSocket (JSON hub protocol v1) and receives ' +
    '`RuleSetChangeEvent` and `CanaryStateChanged` of its tenant. The client posts no body.',
};
const NEGOTIATE_VERSION = {
  name: 'negotiateVersion',
  required: false,
  description: 'The SignalR negotiate protocol version the client speaks (the answer is version 1).',
  schema: { type: 'integer', minimum: 0 },
} as const;

/** `POST /hubs/{rule-set-change|ruleset-changes}/negotiate` of the SignalR hub. */
@ApiTags('push hub')
@ApiErrorFamily(PushHubErrorFamily)
@Controller('hubs')
export class HubNegotiateController {
  constructor(@Inject(SignalRHub) private readonly hub: SignalRHub) {}

  @Post(negotiatePath(RULE_SET_CHANGE_HUB))
  @RequirePolicy(Policies.Viewer)
  @HttpCode(200)
  @ApiOperation({ summary: `Negotiate a connection to ${RULE_SET_CHANGE_HUB}`, ...NEGOTIATE })
  @ApiQuery(NEGOTIATE_VERSION)
  @ApiOkResponse({ description: 'The connection to open', type: HubNegotiationView })
  ruleSetChange() {
    return this.hub.negotiate(RULE_SET_CHANGE_HUB, RequestContext.tenantId());
  }

  @Post(negotiatePath(RULESET_CHANGES_HUB))
  @RequirePolicy(Policies.Viewer)
  @HttpCode(200)
  @ApiOperation({ summary: `Negotiate a connection to ${RULESET_CHANGES_HUB}`, ...NEGOTIATE })
  @ApiQuery(NEGOTIATE_VERSION)
  @ApiOkResponse({ description: 'The connection to open', type: HubNegotiationView })
  rulesetChanges() {
    return this.hub.negotiate(RULESET_CHANGES_HUB, RequestContext.tenantId());
  }
}
