import { Body, Controller, Get, Post } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsInt, IsString, Min, MinLength, ValidateNested } from 'class-validator';
import { ApiCreatedResponse } from '@nestjs/swagger';
import { AppError } from '../src/errors/app-error';
import {
  EnvelopeSelector,
  experienceEnvelope,
  hostedEnvelope,
  traceEnvelope,
} from '../src/errors/error-envelope';
import { RunningService } from '../src/http/service-host';
import { ApiErrorFamily, ApiErrors } from '../src/openapi/api-decorators';
import { defineErrorFamily, ErrorFamily } from '../src/openapi/error-family';
import { startProbe } from './probe-service';

class Address {
  @IsString()
  @MinLength(2)
  city: string;
}

class CreateThing {
  @IsString()
  @MinLength(3)
  name: string;

  @IsInt()
  @Min(1)
  count: number;

  @ValidateNested()
  @Type(() => Address)
  address: Address;
}

const probeCodes = [{ ThingExists: 'THING_EXISTS' }];
const families = {
  trace: defineErrorFamily({
    name: 'ProbeError',
    envelope: 'trace',
    description: 'probe',
    codes: probeCodes,
  }),
  hosted: defineErrorFamily({
    name: 'HostedError',
    envelope: 'hosted',
    description: 'probe',
    codes: probeCodes,
  }),
  experience: defineErrorFamily({
    name: 'ExperienceError',
    envelope: 'experience',
    description: 'probe',
    codes: probeCodes,
  }),
};

/** The probe's routes, documented with the error family of the envelope the probe is started with. */
function probeController(family: ErrorFamily, experienceFamily: ErrorFamily) {
  @ApiErrorFamily(family)
  @Controller()
  class ProbeController {
    @Post('api/v1/things')
    @ApiCreatedResponse({ schema: { type: 'object', properties: { created: { type: 'string' } } } })
    create(@Body() body: CreateThing) {
      return { created: body.name };
    }

    @Get('api/v1/conflict')
    @ApiErrors(409)
    conflict() {
      throw AppError.conflict('THING_EXISTS', 'A thing with that name exists');
    }

    @Get('api/v1/limited')
    @ApiErrors(429)
    limited() {
      throw AppError.tooManyRequests(7);
    }

    @Get('api/v1/crash')
    crash() {
      throw new Error('secret internal detail: password=hunter2');
    }

    @Post('api/experience')
    @ApiErrors(experienceFamily)
    @ApiCreatedResponse({ schema: { type: 'object' } })
    experience(@Body() body: CreateThing) {
      return body;
    }
  }
  return ProbeController;
}

function startEnvelopeProbe(
  envelope: EnvelopeSelector,
  family: ErrorFamily,
  experienceFamily = family,
): Promise<RunningService> {
  return startProbe({
    envelope,
    controllers: [probeController(family, experienceFamily)],
    errorFamily: family,
    overrides: { 'Http:BodyLimitBytes': 2048 },
  });
}

const post = (url: string, body: string, contentType = 'application/json') =>
  fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('error envelope { error, code, traceId }', () => {
  let probe: RunningService;
  beforeAll(async () => {
    probe = await startEnvelopeProbe(() => traceEnvelope, families.trace);
  });
  afterAll(() => probe?.close());

  const expectEnvelope = async (res: Response, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('application/json');
    const body: any = await res.json();
    expect(body).toMatchObject({ code, error: expect.any(String), traceId: expect.any(String) });
    expect(body.traceId).toBe(res.headers.get('x-correlation-id'));
    return body;
  };

  it('malformed JSON → 400 MALFORMED_JSON', async () => {
    await expectEnvelope(await post(`${probe.url}/api/v1/things`, '{"name": '), 400, 'MALFORMED_JSON');
  });

  it('wrong content type → 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    await expectEnvelope(
      await post(`${probe.url}/api/v1/things`, 'name=x', 'text/plain'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    await expectEnvelope(
      await post(`${probe.url}/api/v1/things`, '<x/>', 'application/xml'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
  });

  it('oversized body → 413 PAYLOAD_TOO_LARGE', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(5000), count: 1, address: { city: 'Oslo' } });
    await expectEnvelope(await post(`${probe.url}/api/v1/things`, big), 413, 'PAYLOAD_TOO_LARGE');
  });

  it('unknown route → 404 ROUTE_NOT_FOUND', async () => {
    await expectEnvelope(await fetch(`${probe.url}/api/v1/missing`), 404, 'ROUTE_NOT_FOUND');
    await expectEnvelope(
      await fetch(`${probe.url}/api/v1/things`, { method: 'DELETE' }),
      404,
      'ROUTE_NOT_FOUND',
    );
  });

  it('validation failure → 400 with one entry per problem (nested paths; a wrong type is one problem)', async () => {
    const body = await expectEnvelope(
      await post(`${probe.url}/api/v1/things`, JSON.stringify({ name: 'x', count: 0, address: { city: 1 } })),
      400,
      'VALIDATION_FAILED',
    );
    const fields = body.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['address.city', 'count', 'name']);
  });

  it('a body nested past the depth bound → 400 BODY_TOO_DEEP, one level less passes to validation', async () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const thing = (extra: string) => `{"name":"widget","count":2,"address":{"city":"Oslo"},"extra":${extra}}`;
    await expectEnvelope(await post(`${probe.url}/api/v1/things`, thing(nested(128))), 400, 'BODY_TOO_DEEP');
    const res = await post(`${probe.url}/api/v1/things`, thing(nested(127)));
    expect(res.status).toBe(201);
  });

  it('valid input passes through', async () => {
    const res = await post(
      `${probe.url}/api/v1/things`,
      JSON.stringify({ name: 'widget', count: 2, address: { city: 'Oslo' } }),
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ created: 'widget' });
  });

  it('domain errors keep their status, code and headers', async () => {
    await expectEnvelope(await fetch(`${probe.url}/api/v1/conflict`), 409, 'THING_EXISTS');
    const limited = await fetch(`${probe.url}/api/v1/limited`);
    expect(limited.headers.get('retry-after')).toBe('7');
    await expectEnvelope(limited, 429, 'RATE_LIMITED');
  });

  it('unhandled error → 500 INTERNAL_ERROR with the trace id, no internals leaked, and the service keeps serving', async () => {
    const res = await fetch(`${probe.url}/api/v1/crash`, { headers: { 'x-correlation-id': 'corr-500' } });
    const body = await expectEnvelope(res, 500, 'INTERNAL_ERROR');
    expect(body.traceId).toBe('corr-500');
    expect(JSON.stringify(body)).not.toContain('hunter2');
    expect((await fetch(`${probe.url}/api/v1/conflict`)).status).toBe(409);
  });
});

describe('identity envelopes', () => {
  let probe: RunningService;
  beforeAll(async () => {
    probe = await startEnvelopeProbe(
      (path) => (/^\/api\/(?!v\d)/.test(path) ? experienceEnvelope : hostedEnvelope),
      families.hosted,
      families.experience,
    );
  });
  afterAll(() => probe?.close());

  it('hosted endpoints answer { isSuccess: false, result: null, errors: [{ code, message }], timestamp }', async () => {
    const res = await post(
      `${probe.url}/api/v1/things`,
      JSON.stringify({ name: 'x', count: 1, address: { city: 'Oslo' } }),
    );
    expect(res.status).toBe(400);
    const body: any = await res.json();
    expect(body).toEqual({
      isSuccess: false,
      result: null,
      errors: [{ code: 'VALIDATION_FAILED', message: expect.stringContaining('name') }],
      timestamp: expect.any(String),
    });
  });

  it('experience endpoints answer { error, code, timestamp }', async () => {
    const res = await post(`${probe.url}/api/experience`, '{oops');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: expect.any(String),
      code: 'MALFORMED_JSON',
      timestamp: expect.any(String),
    });
  });
});
