import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { decisionsService, startDecisions } from '../src';

describe('decisions host', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
  });
  afterAll(() => sut?.stop());

  it('answers /health and /health/live', async () => {
    const res = await fetch(`${sut.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'ok',
      service: 'decisions',
      checks: { database: { status: 'up' } },
    });
    expect((await fetch(`${sut.url}/health/live`)).status).toBe(200);
  });

  it('answers unknown routes with { error, code, traceId }', async () => {
    const res = await fetch(`${sut.url}/api/v1/decision-tables-nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: expect.any(String),
      code: 'ROUTE_NOT_FOUND',
      traceId: expect.any(String),
    });
  });

  it('publishes /docs-json', async () => {
    const res = await fetch(`${sut.url}/docs-json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).info.title).toBe('Arbiter decisions');
  });
});

describe('decisions startup rules', () => {
  it('stops when ConnectionStrings:DecisionTablesDb is empty, naming the key', async () => {
    await expect(
      startDecisions({
        environment: 'Testing',
        env: {},
        port: 0,
        overrides: { 'ConnectionStrings:DecisionTablesDb': ' ' },
      }),
    ).rejects.toThrow(/ConnectionStrings:DecisionTablesDb is required/);
  });

  it('refuses a cache connection string that is not a NATS URL', async () => {
    await expect(
      startDecisions({
        environment: 'Testing',
        env: { ConnectionStrings__Cache: 'redis://localhost:6379' },
        port: 0,
      }),
    ).rejects.toThrow(/ConnectionStrings:Cache must be a NATS URL/);
  });
});
