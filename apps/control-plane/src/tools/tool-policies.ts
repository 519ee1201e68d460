import { AUTH_OPTIONS, AuthOptions, hasPolicy, PolicyName } from '@arbiter/auth';
import { AppError, RequestContext } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';

/**
 * The HTTP routes' policies for tool calls: the routes `/mcp` and `/sse` only need an authenticated
 * caller (the global guard), each tool then requires the policy its HTTP route requires — through the
 * configured policy decision point when there is one. Nothing is checked with authorization off.
 */
@Injectable()
export class ToolPolicies {
  constructor(@Inject(AUTH_OPTIONS) private readonly options: AuthOptions) {}

  /** An `authorize` step for a tool: refuses (403 FORBIDDEN) a caller without `policy`. */
  require(policy: PolicyName, tool: string): () => Promise<void> {
    return async () => {
      if (!this.options.enabled) return;
      const user = RequestContext.current()?.user;
      if (!user) throw AppError.unauthorized();
      const pdp = this.options.decisionPoint;
      const allowed = pdp
        ? await pdp.decide({
            user,
            tenantId: RequestContext.tenantId(),
            permissions: [],
            policies: [policy],
            method: 'POST',
            path: `tool:${tool}`,
          })
        : hasPolicy(user, policy);
      if (!allowed) throw AppError.forbidden(`Missing permission: policy ${policy} (tool ${tool})`);
    };
  }
}
