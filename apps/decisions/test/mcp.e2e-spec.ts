import { hashApiKey } from '@arbiter/auth';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decisionsService } from '../src';
import { client, sampleTable } from './helpers';

const TOOLS = [
  'svc_decision_table_list',
  'svc_decision_table_get',
  'svc_decision_table_get_version',
  'svc_decision_table_get_versions',
  'svc_decision_table_diff_versions',
  'svc_decision_table_evaluate',
];

describe('decisions tool-protocol server (MCP)', () => {
  let sut: ServiceUnderTest;
  let tableId: string;
  const open: Client[] = [];

  async function mcp(tenant: string): Promise<Client> {
    const c = new Client({ name: 'decisions-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${sut.url}/mcp`), {
        requestInit: { headers: { 'x-tenant-id': tenant } },
      }),
    );
    open.push(c);
    return c;
  }

  const json = (result: any) => JSON.parse(result.content[0].text);

  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    const api = client(sut.url, 'tenant-a');
    const created = await api.post('', sampleTable('MCP table'));
    expect(created.status).toBe(201);
    tableId = created.body.id;
    const table = sampleTable('MCP table');
    table.rows[2].outputs.risk = 'very high';
    expect((await api.put(`/${tableId}`, { ...table, comment: 'raise' })).status).toBe(200);
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
    await sut?.stop();
  });

  it('lists the six tools with argument schemas', async () => {
    const c = await mcp('tenant-a');
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    const evaluate = tools.find((t) => t.name === 'svc_decision_table_evaluate')!;
    expect(evaluate.inputSchema).toMatchObject({
      type: 'object',
      properties: { id: { type: 'string' }, input: { type: 'object' }, version: { type: 'integer' } },
      required: ['id', 'input'],
    });
  });

  it('calls every tool through the same service as the HTTP routes', async () => {
    const c = await mcp('tenant-a');
    const list = json(await c.callTool({ name: 'svc_decision_table_list', arguments: {} }));
    expect(list).toEqual([
      expect.objectContaining({ id: tableId, name: 'MCP table', version: 2, rowCount: 3 }),
    ]);

    const table = json(await c.callTool({ name: 'svc_decision_table_get', arguments: { id: tableId } }));
    expect(table).toMatchObject({ id: tableId, version: 2, hitPolicy: 'First', tenantId: 'tenant-a' });

    const v1 = json(
      await c.callTool({ name: 'svc_decision_table_get_version', arguments: { id: tableId, version: 1 } }),
    );
    expect(v1.version).toBe(1);
    expect(v1.rows[2].outputs.risk).toBe('high');

    const versions = json(
      await c.callTool({ name: 'svc_decision_table_get_versions', arguments: { id: tableId, pageSize: 1 } }),
    );
    expect(versions).toEqual([expect.objectContaining({ version: 2, comment: 'raise' })]);

    const diff = json(
      await c.callTool({
        name: 'svc_decision_table_diff_versions',
        arguments: { id: tableId, fromVersion: 1, toVersion: 2 },
      }),
    );
    expect(diff).toMatchObject({
      fromVersion: 1,
      toVersion: 2,
      modifiedRows: [{ rowId: 'r3', changes: { outputs: { risk: { from: 'high', to: 'very high' } } } }],
    });

    const latest = json(
      await c.callTool({
        name: 'svc_decision_table_evaluate',
        arguments: { id: tableId, input: { age: 70, country: 'US' } },
      }),
    );
    expect(latest).toMatchObject({ matchedRows: ['r3'], outputValues: { risk: 'very high' } });
    const old = json(
      await c.callTool({
        name: 'svc_decision_table_evaluate',
        arguments: { id: tableId, input: { age: 70 }, version: 1 },
      }),
    );
    expect(old.outputValues).toEqual({ risk: 'high' });
  });

  it('turns bad arguments and service errors into tool errors with the stable code', async () => {
    const c = await mcp('tenant-a');
    const bad = (await c.callTool({
      name: 'svc_decision_table_get_version',
      arguments: { id: tableId, version: 'one' },
    })) as any;
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/Input validation error.*version/s);

    const missing = (await c.callTool({
      name: 'svc_decision_table_evaluate',
      arguments: { id: tableId, input: { country: 'NL' } },
    })) as any;
    expect(missing.isError).toBe(true);
    expect(JSON.parse(missing.content[0].text)).toMatchObject({
      code: 'MISSING_REQUIRED_INPUT',
      traceId: expect.any(String),
    });

    const noVersion = (await c.callTool({
      name: 'svc_decision_table_get_version',
      arguments: { id: tableId, version: 9 },
    })) as any;
    expect(JSON.parse(noVersion.content[0].text).code).toBe('VERSION_NOT_FOUND');
  });

  it("does not show tenant A's table to tenant B", async () => {
    const b = await mcp('tenant-b');
    expect(json(await b.callTool({ name: 'svc_decision_table_list', arguments: {} }))).toEqual([]);
    const got = (await b.callTool({ name: 'svc_decision_table_get', arguments: { id: tableId } })) as any;
    expect(got.isError).toBe(true);
    expect(JSON.parse(got.content[0].text).code).toBe('TABLE_NOT_FOUND');
    const evaluated = (await b.callTool({
      name: 'svc_decision_table_evaluate',
      arguments: { id: tableId, input: { age: 30 } },
    })) as any;
    expect(JSON.parse(evaluated.content[0].text).code).toBe('TABLE_NOT_FOUND');
  });

  describe('plain call { method, args }', () => {
    const plain = async (path: string, body: unknown, tenant = 'tenant-a') => {
      const res = await fetch(`${sut.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-tenant-id': tenant },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as any };
    };

    it.each(['/sse', '/mcp'])('answers { result } at %s', async (path) => {
      const res = await plain(path, {
        method: 'svc_decision_table_evaluate',
        args: { id: tableId, input: { age: 30, country: 'NL' } },
      });
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({ matchedRows: ['r2'], outputValues: { risk: 'low' } });
      const list = await plain(path, { method: 'svc_decision_table_list' });
      expect(list.body.result).toHaveLength(1);
    });

    it('answers the error envelope with the REST status', async () => {
      expect(
        await plain('/sse', { method: 'svc_decision_table_get', args: { id: tableId } }, 'tenant-b'),
      ).toEqual({
        status: 404,
        body: { error: expect.any(String), code: 'TABLE_NOT_FOUND', traceId: expect.any(String) },
      });
      const bad = await plain('/sse', { method: 'svc_decision_table_diff_versions', args: { id: tableId } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_FAILED');
      expect(bad.body.details.map((d: any) => d.field).sort()).toEqual([
        'args.fromVersion',
        'args.toVersion',
      ]);
      const unknown = await plain('/sse', { method: 'svc_nope', args: {} });
      expect(unknown).toMatchObject({ status: 404, body: { code: 'UNKNOWN_TOOL' } });
      const hitPolicy = await plain('/sse', {
        method: 'svc_decision_table_evaluate',
        args: { id: tableId, input: { age: 'old' } },
      });
      expect(hitPolicy).toMatchObject({ status: 400, body: { code: 'INPUT_TYPE_MISMATCH' } });
      expect((await plain('/sse', { args: {} })).body.code).toBe('VALIDATION_FAILED');
    });

    it('refuses GET on the stateless MCP endpoint with 405', async () => {
      const res = await fetch(`${sut.url}/mcp`, { headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
    });
  });
});

/** With authentication configured, the tool endpoints honour it like every other route. */
describe('decisions MCP endpoint behind API keys', () => {
  const KEY_A = 'dk_live_mcp_tenant_a_5f0c1d2e3a4b5c6d7e8f9a0b1c';
  const KEY_B = 'dk_live_mcp_tenant_b_0a1b2c3d4e5f60718293a4b5c6';
  let sut: ServiceUnderTest;
  let tableId: string;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: {
        'Authentication:ApiKeys:tenant-a': hashApiKey(KEY_A),
        'Authentication:ApiKeys:tenant-b': hashApiKey(KEY_B),
      },
    });
    const created = await fetch(`${sut.url}/api/v1/decision-tables`, {
      method: 'POST',
      headers: { 'x-api-key': KEY_A, 'content-type': 'application/json' },
      body: JSON.stringify(sampleTable('Keyed MCP table')),
    });
    tableId = ((await created.json()) as any).id;
  });
  afterAll(() => sut?.stop());

  it('refuses calls without credentials with 401 (MCP and plain form)', async () => {
    const c = new Client({ name: 'decisions-test', version: '1.0.0' });
    await expect(c.connect(new StreamableHTTPClientTransport(new URL(`${sut.url}/mcp`)))).rejects.toThrow();
    const res = await fetch(`${sut.url}/sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'svc_decision_table_list', args: {} }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as any).code).toBe('UNAUTHORIZED');
  });

  it('takes the tenant from the key, not from x-tenant-id', async () => {
    const connect = async (key: string) => {
      const c = new Client({ name: 'decisions-test', version: '1.0.0' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`${sut.url}/mcp`), {
          requestInit: { headers: { 'x-api-key': key, 'x-tenant-id': 'tenant-a' } },
        }),
      );
      return c;
    };
    const a = await connect(KEY_A);
    const b = await connect(KEY_B);
    try {
      const got = (await a.callTool({ name: 'svc_decision_table_get', arguments: { id: tableId } })) as any;
      expect(JSON.parse(got.content[0].text).tenantId).toBe('tenant-a');
      const hidden = (await b.callTool({
        name: 'svc_decision_table_get',
        arguments: { id: tableId },
      })) as any;
      expect(hidden.isError).toBe(true);
      expect(JSON.parse(hidden.content[0].text).code).toBe('TABLE_NOT_FOUND');
    } finally {
      await a.close();
      await b.close();
    }
  });
});
