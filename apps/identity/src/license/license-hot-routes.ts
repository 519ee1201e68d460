import { createValidationPipe, hostedEnvelope, registerHotRoute } from '@arbiter/platform';
import { Inject, Injectable, OnApplicationBootstrap, PipeTransform, Type } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ok } from '../crud';
import { FINGERPRINT, HeartbeatDto, ValidateDto } from './dto';
import { Heartbeat, ValidateLicense } from './runtime-checks';

/** Printable ASCII, 1-64 characters: a value the DTO's string rules take as it is. */
const PLAIN_64 = /^[\x20-\x7e]{1,64}$/;
/** A canonical UUID (a subset of what the DTO's `format: uuid` takes). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const NONCE = /^[A-Za-z0-9_-]{16,128}$/;

function plainObject(body: unknown): body is Record<string, unknown> {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    Object.getPrototypeOf(body) === Object.prototype
  );
}

function onlyKeys(body: Record<string, unknown>, allowed: readonly string[]): boolean {
  for (const key in body) if (!allowed.includes(key)) return false;
  return true;
}

const VALIDATE_KEYS = ['licenseKey', 'machineFingerprint', 'actionType'] as const;
const HEARTBEAT_KEYS = ['proofId', 'licenseId', 'machineFingerprint', 'nonce'] as const;

/** The common case of a validate body, checked by hand: exactly what the DTO takes without a doubt. */
function plainValidateBody(body: unknown): ValidateDto | undefined {
  if (!plainObject(body) || !onlyKeys(body, VALIDATE_KEYS)) return undefined;
  const { licenseKey, machineFingerprint, actionType } = body;
  if (
    typeof licenseKey === 'string' &&
    PLAIN_64.test(licenseKey) &&
    typeof machineFingerprint === 'string' &&
    FINGERPRINT.test(machineFingerprint) &&
    typeof actionType === 'string' &&
    PLAIN_64.test(actionType)
  )
    return { licenseKey, machineFingerprint, actionType };
  return undefined;
}

function plainHeartbeatBody(body: unknown): HeartbeatDto | undefined {
  if (!plainObject(body) || !onlyKeys(body, HEARTBEAT_KEYS)) return undefined;
  const { proofId, licenseId, machineFingerprint, nonce } = body;
  if (
    typeof proofId === 'string' &&
    UUID.test(proofId) &&
    typeof licenseId === 'string' &&
    UUID.test(licenseId) &&
    typeof machineFingerprint === 'string' &&
    FINGERPRINT.test(machineFingerprint) &&
    typeof nonce === 'string' &&
    NONCE.test(nonce)
  )
    return { proofId, licenseId, machineFingerprint, nonce };
  return undefined;
}

/**
 * `POST /api/v1/validate` and `POST /api/v1/heartbeat` — what every runtime calls, all the time — as hot
 * routes (`registerHotRoute`: a fast path in front of Fastify for plain JSON requests, a Fastify route for
 * the rest) instead of Nest's router. Same semantics as the Nest routes they replace: public (no JWT; the
 * license key, or the proof and nonce, are the credential), the hosted envelope for answers and errors,
 * and the same body validation — a body whose every field is plainly within the DTO's rules is taken as
 * it is; any other body goes through the very validation pipe of the Nest routes (so a bad body gets the
 * same 400 `VALIDATION_FAILED`, `INVALID_CHARACTERS` or `BODY_TOO_DEEP` with the same field messages).
 * Their OpenAPI operations: `LicenseRuntimeRouteDocumentation` (license-runtime.docs.ts).
 */
@Injectable()
export class LicenseHotRoutes implements OnApplicationBootstrap {
  private readonly pipe: PipeTransform = createValidationPipe();

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(ValidateLicense) private readonly validateLicense: ValidateLicense,
    @Inject(Heartbeat) private readonly heartbeats: Heartbeat,
  ) {}

  private async validated<T>(body: unknown, dto: Type<T>): Promise<T> {
    return (await this.pipe.transform(body, { type: 'body', metatype: dto, data: undefined })) as T;
  }

  onApplicationBootstrap() {
    const adapter = this.adapterHost.httpAdapter;
    registerHotRoute(adapter, {
      method: 'POST',
      url: '/api/v1/validate',
      envelope: hostedEnvelope,
      handle: (request) => {
        const plain = plainValidateBody(request.body);
        const answer = (dto: ValidateDto) => {
          const result = this.validateLicense.execute(dto);
          return result instanceof Promise ? result.then(ok) : ok(result);
        };
        if (plain) return answer(plain);
        return this.validated(request.body, ValidateDto).then(answer);
      },
    });
    registerHotRoute(adapter, {
      method: 'POST',
      url: '/api/v1/heartbeat',
      envelope: hostedEnvelope,
      handle: async (request) => {
        const dto = plainHeartbeatBody(request.body) ?? (await this.validated(request.body, HeartbeatDto));
        return ok(await this.heartbeats.execute(dto));
      },
    });
  }
}
