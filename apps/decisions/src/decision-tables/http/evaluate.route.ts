import { AuthPipeline, registerAuthorizedHotRoute } from '@arbiter/auth';
import { traceEnvelope } from '@arbiter/platform';
import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { DecisionTableEvaluationService } from '../application/decision-table-evaluation.service';
import { optionalVersion } from '../request-values';
import { decisionsRequirements } from '../../auth';

/**
 * `POST /api/v1/decision-tables/{id}/evaluate` — the hot path — a hot route (registerAuthorizedHotRoute: a
 * fast path in front of Fastify for plain JSON requests, the Fastify route for the rest) instead of Nest's
 * router: the same authorization pipeline (token or API key, tenant claim), the same error envelope and the
 * same service call, without Nest's per-request pipeline. Body `{ input }` (an object body's other keys are
 * not read; any other body is taken as the input, which the service refuses unless it is null), query
 * `version`. Its OpenAPI operation: `EvaluateRouteDocumentation` (evaluate.route.docs.ts).
 */
@Injectable()
export class EvaluateHotRoute implements OnApplicationBootstrap {
  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(DecisionTableEvaluationService) private readonly evaluation: DecisionTableEvaluationService,
    @Inject(AuthPipeline) private readonly auth: AuthPipeline,
  ) {}

  onApplicationBootstrap() {
    registerAuthorizedHotRoute(
      this.adapterHost.httpAdapter,
      this.auth,
      {
        method: 'POST',
        url: '/api/v1/decision-tables/:id/evaluate',
        envelope: traceEnvelope,
        handle: (request) => {
          const body = request.body;
          const input =
            body && typeof body === 'object' && !Array.isArray(body)
              ? (body as { input?: unknown }).input
              : body;
          return this.evaluation.evaluate(
            request.params.id,
            input ?? {},
            optionalVersion(request.query.version),
          );
        },
      },
      { permissions: decisionsRequirements('viewer') },
    );
  }
}
