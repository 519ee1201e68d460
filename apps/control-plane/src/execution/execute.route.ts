import { AuthPipeline, registerAuthorizedHotRoute } from '@arbiter/auth';
import { traceEnvelope } from '@arbiter/platform';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { parseExecuteBody } from './execution.controller';
import { ExecutionService } from './execution.service';

/**
 * `POST /api/v1/rule-engine/execute/{workflowName}` — client traffic — a hot route (registerAuthorizedHotRoute:
 * a fast path in front of Fastify for plain JSON requests, the Fastify route for the rest): the same
 * authorization pipeline as every Nest route (an authenticated caller when authorization is on; no operator
 * policy), the same envelope, without Nest's per-request pipeline.
 */
@Injectable()
export class ExecuteHotRoute implements OnApplicationBootstrap {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(ExecutionService) private readonly executions: ExecutionService,
    @Inject(AuthPipeline) private readonly auth: AuthPipeline,
  ) {}

  onApplicationBootstrap() {
    registerAuthorizedHotRoute(this.adapterHost.httpAdapter, this.auth, {
      method: 'POST',
      url: '/api/v1/rule-engine/execute/:workflowName',
      envelope: traceEnvelope,
      handle: (request) => {
        const bucket = request.headers['x-bucket-key'];
        return this.executions.execute(
          parseExecuteBody(
            request.params.workflowName,
            request.body,
            typeof bucket === 'string' ? bucket : undefined,
          ),
        );
      },
    });
  }
}
