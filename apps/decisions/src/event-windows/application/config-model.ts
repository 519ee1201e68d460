import {
  AGGREGATES,
  AggregateName,
  formatDuration,
  parseDuration,
  WindowDefinition,
  WindowType,
} from '@arbiter/event-windows';
import { AppError } from '@arbiter/platform';
import { EventWindowErrors as E } from '../errors';
import type { EventWindowConfigBody } from '../http/dto';
import type { EventWindowConfigEntity } from '../persistence/entities';

/** Ids appear in NATS subjects (`arbiter.events.<tenant>.<id>`): no dots, wildcards or spaces. */
export const CONFIG_ID = /^[A-Za-z0-9_-]{1,100}$/;

export function checkConfigId(id: string): string {
  if (!CONFIG_ID.test(id))
    throw AppError.badRequest(
      E.InvalidConfigId,
      `'${id.slice(0, 120)}' is not a valid configuration id (letters, digits, '_' and '-', at most 100)`,
    );
  return id;
}

export type ConfigFields = Omit<
  EventWindowConfigEntity,
  'tenantId' | 'id' | 'version' | 'createdAt' | 'modifiedAt'
>;

function duration(field: string, text: string | undefined, fallback?: number): number {
  if (text === undefined && fallback !== undefined) return fallback;
  const ms = parseDuration(text);
  if (ms === null)
    throw AppError.badRequest(
      E.InvalidDuration,
      `${field} must be an ISO 8601 duration (PT10M) or .NET TimeSpan text (00:10:00), got '${String(text).slice(0, 60)}'`,
      [{ field, message: 'not a duration (PT10M or 00:10:00)' }],
    );
  return ms;
}

/** Checks a `PUT` body beyond its shape: durations, size > 0, size ≤ TTL, emit mode, tenant. */
export function configFields(body: EventWindowConfigBody, tenantId: string): ConfigFields {
  if (body.TenantId !== undefined && body.TenantId !== tenantId)
    throw AppError.badRequest(E.TenantMismatch, `TenantId '${body.TenantId}' is not the caller's tenant`, [
      { field: 'TenantId', message: "must be the caller's tenant (or absent)" },
    ]);
  const size = duration('WindowSize', body.WindowSize);
  const ttl = duration('TimeToLive', body.TimeToLive);
  const lateness = duration('AllowedLateness', body.AllowedLateness, 0);
  if (size <= 0)
    throw AppError.badRequest(E.InvalidWindowSize, 'WindowSize must be longer than zero', [
      { field: 'WindowSize', message: 'must be longer than zero' },
    ]);
  if (size > ttl)
    throw AppError.badRequest(
      E.WindowLongerThanTtl,
      `WindowSize (${formatDuration(size)}) is longer than TimeToLive (${formatDuration(ttl)})`,
      [{ field: 'WindowSize', message: 'must not be longer than TimeToLive' }],
    );
  const aggregates = [...new Set(body.Aggregates ?? ['count', 'sum'])];
  const unknown = aggregates.filter((a) => !(AGGREGATES as readonly string[]).includes(a));
  if (unknown.length)
    throw AppError.validation([
      {
        field: 'Aggregates',
        message: `unknown aggregate(s) ${unknown.join(', ')}; known: ${AGGREGATES.join(', ')}`,
      },
    ]);
  const emitMode = body.EmitMode ?? 'OnUpdate';
  if (emitMode === 'OnClose' && body.WindowType === 'Sliding')
    throw AppError.badRequest(
      E.EmitModeNotSupported,
      'A sliding window never closes: EmitMode OnClose needs Tumbling or Session',
      [{ field: 'EmitMode', message: 'OnClose is for Tumbling and Session windows' }],
    );
  return {
    name: body.Name,
    windowType: body.WindowType,
    windowSizeMs: size,
    timeToLiveMs: ttl,
    allowedLatenessMs: lateness,
    correlationKey: body.CorrelationKey,
    valuePath: body.ValuePath ?? null,
    aggregates,
    emitMode,
  };
}

export function configView(c: EventWindowConfigEntity) {
  return {
    Id: c.id,
    Name: c.name,
    WindowType: c.windowType,
    WindowSize: formatDuration(c.windowSizeMs),
    TimeToLive: formatDuration(c.timeToLiveMs),
    CorrelationKey: c.correlationKey,
    TenantId: c.tenantId,
    AllowedLateness: formatDuration(c.allowedLatenessMs),
    ValuePath: c.valuePath,
    Aggregates: c.aggregates,
    EmitMode: c.emitMode,
    Version: c.version,
    CreatedAt: c.createdAt.toISOString(),
    ModifiedAt: c.modifiedAt.toISOString(),
  };
}

export function windowDefinition(c: EventWindowConfigEntity, retainValues = true): WindowDefinition {
  return {
    type: c.windowType as WindowType,
    sizeMs: c.windowSizeMs,
    timeToLiveMs: c.timeToLiveMs,
    allowedLatenessMs: c.allowedLatenessMs,
    aggregates: c.aggregates as AggregateName[],
    retainValues,
  };
}
