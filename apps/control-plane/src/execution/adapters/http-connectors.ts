import type { ConnectorInvoker, Facts } from '@arbiter/rule-engine';
import { Inject, Injectable } from '@nestjs/common';
import { RuleEngineSettings } from '../execution.settings';

/**
 * Connector nodes' side effects: `RuleEngineOptions:Connectors:<name>` = URL. A call POSTs
 * `{ connector, operation, input, tenantId, correlationId }` as JSON with the node's timeout and
 * expects a JSON object back (the node's output facts). Anything else is a failure of the node.
 */
@Injectable()
export class HttpConnectorInvoker implements ConnectorInvoker {
  calls = 0;

  constructor(@Inject(RuleEngineSettings) private readonly settings: RuleEngineSettings) {}

  async invoke(request: Parameters<ConnectorInvoker['invoke']>[0], signal?: AbortSignal): Promise<Facts> {
    const url = this.settings.connectors?.[request.connector];
    if (!url)
      throw new Error(`connector '${request.connector}' is not configured (RuleEngineOptions:Connectors)`);
    this.calls++;
    const timeout = AbortSignal.timeout(request.timeoutMs);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(request.tenantId ? { 'x-tenant-id': request.tenantId } : {}),
        ...(request.correlationId ? { 'x-correlation-id': request.correlationId } : {}),
      },
      body: JSON.stringify({
        connector: request.connector,
        operation: request.operation ?? null,
        input: request.input,
        tenantId: request.tenantId ?? null,
        correlationId: request.correlationId ?? null,
      }),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!response.ok) throw new Error(`connector '${request.connector}' answered ${response.status}`);
    const body = (await response.json()) as unknown;
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new Error(`connector '${request.connector}' did not answer a JSON object`);
    return body as Facts;
  }
}
