import type { Facts } from '@arbiter/rule-engine';
import { AppError } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { RuleEngineSettings } from '../execution.settings';
import { ExecutionErrorCodes } from '../execution-errors';

/** The `window` field of an execute request: which event-window configuration, keyed by which fact. */
export interface WindowReference {
  /** Id of the event-window configuration in the decisions service (`/api/v1/rule-engine/cep/{id}`). */
  configId: string;
  /** Dot path of the fact holding the correlation key (e.g. `userId`, `user.id`). */
  keyFact: string;
}

/**
 * Reads a key's live window from the decisions service (`RuleEngineOptions:DecisionTablesUrl`,
 * `GET /api/v1/rule-engine/cep/{id}/keys/{key}/window`) as the caller's tenant and answers its rule facts
 * (`{ window: { key, start, end, count, sum, … } }`). Never cached: a window changes with every event.
 */
@Injectable()
export class EventWindowClient {
  fetches = 0;

  constructor(@Inject(RuleEngineSettings) private readonly settings: RuleEngineSettings) {}

  /** The request's facts with `window` set to the aggregates of the key the `keyFact` names. */
  async withWindowFacts(tenantId: string, reference: WindowReference, facts: Facts): Promise<Facts> {
    const key = keyOf(facts, reference.keyFact);
    const base = this.settings.decisionTablesUrl.replace(/\/+$/, '');
    const url = `${base}/api/v1/rule-engine/cep/${encodeURIComponent(reference.configId)}/keys/${encodeURIComponent(key)}/window`;
    const label = `event window '${reference.configId}'`;
    this.fetches++;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: {
          'x-tenant-id': tenantId,
          accept: 'application/json',
          ...(this.settings.decisionTablesApiKey ? { 'x-api-key': this.settings.decisionTablesApiKey } : {}),
        },
        signal: AbortSignal.timeout(5000),
      });
    } catch (error) {
      throw unavailable(
        `${label}: the decisions service at ${base} did not answer (${(error as Error).message})`,
      );
    }
    if (response.status === 404)
      throw AppError.unprocessable(ExecutionErrorCodes.EventWindowNotFound, `${label} does not exist`);
    if (response.status === 401 || response.status === 403)
      throw unavailable(
        `${label}: the decisions service refused the control plane's credentials (${response.status}); ` +
          'set RuleEngineOptions:DecisionTablesApiKey to a service key of that service',
      );
    if (!response.ok) throw unavailable(`${label}: the decisions service answered ${response.status}`);
    // Parsed here (not `response.json()`): the facts must be plain objects of this realm, which is what the
    // FEEL evaluator reads as contexts (under Jest's VM realms `fetch` answers objects of another realm).
    const body = JSON.parse(await response.text()) as { Facts?: { window?: Facts } };
    return { ...facts, window: body.Facts?.window ?? {} };
  }
}

function unavailable(message: string) {
  return new AppError(503, ExecutionErrorCodes.EventWindowsUnavailable, message);
}

/** The correlation key: a non-empty string or a finite number at `path` in the facts (400 otherwise). */
function keyOf(facts: Facts, path: string): string {
  let value: unknown = facts;
  for (const part of path.split('.')) {
    value =
      value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, part)
        ? (value as Record<string, unknown>)[part]
        : undefined;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.length > 0 && value.length <= 256) return value;
  throw AppError.validation(
    [{ field: 'window.keyFact', message: `facts.${path} must be a non-empty string (≤ 256) or a number` }],
    `The correlation key fact '${path}' is missing or not a string/number`,
  );
}
