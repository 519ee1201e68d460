import { AuthPipeline } from '@arbiter/auth';
import { registerHotRoute, traceEnvelope } from '@arbiter/platform';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { parseExecuteBody } from './execution.controller';
import { ExecutionService } from './execution.service';

/**
 * `POST /api/v1/rule-engine/execute/{workflowName}` — client traffic — served by Fastify directly
 * (registerHotRoute): the same authorization pipeline as every Nest route (an authenticated caller when
 * authorization is on; no operator policy), the same envelope, without Nest's per-request pipeline.
 */
@Injectable()
export class ExecuteHotRoute implements OnApplicationBootstrap {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(ExecutionService) private readonly executions: ExecutionService,
    @Inject(AuthPipeline) private readonly auth: AuthPipeline,
  ) {}

  onApplicationBootstrap() {
    const fastify = this.adapterHost.httpAdapter?.getInstance();
    if (!fastify) return;
    registerHotRoute(fastify, {
      method: 'POST',
      url: '/api/v1/rule-engine/execute/:workflowName',
      envelope: traceEnvelope,
      handle: async (request) => {
        if (this.auth.enabled) await this.auth.authorize(request);
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
