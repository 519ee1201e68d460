import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { controlPlaneService } from '../src';
import { A, client, operatorAuthOverrides, operatorToken } from './helpers';

const TOOLS = [
  'svc_ruleset_list',
  'svc_ruleset_get_versions',
  'svc_ruleset_export',
  'svc_ruleset_save',
  'svc_ruleset_activate',
  'svc_ruleset_dry_run',
  'svc_ruleset_draft', // the copilot's (test/copilot.e2e-spec.ts)
];

const ruleSet = (tier: string) => ({
  rules: [
    { id: 'big', name: 'Big amount', condition: 'input.amount > 1000', output: { tier } },
    { id: 'any', name: 'Any amount', condition: 'amount >= 0', output: { seen: true } },
  ],
});

const json = (result: any) => JSON.parse(result.content[0].text);

describe('control-plane tool-protocol server (svc_ruleset_* tools)', () => {
  let sut: ServiceUnderTest;
  const open: Client[] = [];

  async function mcp(headers: Record<string, string>): Promise<Client> {
    const c = new Client({ name: 'control-plane-test', version: '1.0.0' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${sut.url}/mcp`), { requestInit: { headers } }),
    );
    open.push(c);
    return c;
  }

  const plain = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${sut.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false },
    });
  });
  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
    await sut?.stop();
  });

  it('lists the six tools of the spec (and the copilot draft tool) with the spec argument names as JSON schemas', async () => {
    const c = await mcp({ 'x-tenant-id': 'acme' });
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
    const schema = (name: string) => tools.find((t) => t.name === name)!.inputSchema as any;
    expect(schema('svc_ruleset_save')).toMatchObject({
      type: 'object',
      properties: {
        workflowName: { type: 'string' },
        ruleSet: { type: 'object' },
        detail: { type: 'string' },
        actor: { type: 'string' },
      },
      required: ['workflowName', 'ruleSet'],
    });
    expect(schema('svc_ruleset_activate').required.sort()).toEqual(['version', 'workflowName']);
    expect(schema('svc_ruleset_export').required).toEqual(['workflowName']);
    expect(schema('svc_ruleset_dry_run').required.sort()).toEqual(['inputs', 'workflowName']);
    expect(schema('svc_ruleset_draft').required.sort()).toEqual(['description', 'workflowName']);
  });

  it('saves, lists, activates, exports and dry-runs through MCP, as the HTTP routes would', async () => {
    const c = await mcp({ 'x-tenant-id': 'acme', 'x-actor': 'header-actor' });
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await c.callTool({ name, arguments: args })) as any;
      expect(result.isError).toBeFalsy();
      return json(result);
    };
    const saved = await call('svc_ruleset_save', {
      workflowName: 'loan',
      ruleSet: ruleSet('gold'),
      detail: 'first',
      actor: 'alice',
    });
    expect(saved).toMatchObject({ workflowName: 'loan', version: 1, status: 'draft', createdBy: 'alice' });
    const second = await call('svc_ruleset_save', { workflowName: 'loan', ruleSet: ruleSet('platinum') });
    expect(second).toMatchObject({ version: 2, createdBy: 'header-actor' });

    const activated = await call('svc_ruleset_activate', {
      workflowName: 'loan',
      version: 1,
      detail: 'go',
      actor: 'bob',
    });
    expect(activated).toMatchObject({ version: 1, status: 'Active', activatedBy: 'bob' });

    const list = await call('svc_ruleset_list', {});
    expect(list.rulesets).toEqual([
      expect.objectContaining({ workflowName: 'loan', activeVersion: 1, totalVersions: 2 }),
    ]);
    const versions = await call('svc_ruleset_get_versions', { workflowName: 'loan' });
    expect(versions).toMatchObject({ workflowName: 'loan', activeVersion: 1 });
    expect(versions.versions.map((v: any) => [v.version, v.status])).toEqual([
      [2, 'Draft'],
      [1, 'Active'],
    ]);

    const active = await call('svc_ruleset_export', { workflowName: 'loan' });
    expect(active).toMatchObject({ version: 1, ruleSet: ruleSet('gold') });
    const v2 = await call('svc_ruleset_export', { workflowName: 'loan', version: 2 });
    expect(v2).toMatchObject({ version: 2, ruleSet: ruleSet('platinum') });

    const dry = await call('svc_ruleset_dry_run', { workflowName: 'loan', inputs: { amount: 5000 } });
    expect(dry).toMatchObject({
      executionId: expect.any(String),
      status: 'success',
      outputs: { tier: 'gold', seen: true },
      executionTime: expect.stringMatching(/ms$/),
      rulesExecuted: 2,
      sideEffectsApplied: false,
    });
    const dryV2 = await call('svc_ruleset_dry_run', {
      workflowName: 'loan',
      inputs: { amount: 5000 },
      version: 2,
    });
    expect(dryV2.outputs.tier).toBe('platinum');

    // the same data through HTTP: the audit names the tool callers
    const audit = await client(sut.url, { 'x-tenant-id': 'acme' }).get(`${A}/loan/audit`);
    expect(audit.body.entries.map((e: any) => [e.action, e.actor])).toEqual([
      ['ACTIVATE', 'bob'],
      ['SAVE', 'header-actor'],
      ['SAVE', 'alice'],
    ]);
  });

  it('turns bad arguments and service errors into tool errors carrying the stable code', async () => {
    const c = await mcp({ 'x-tenant-id': 'acme' });
    const bad = (await c.callTool({
      name: 'svc_ruleset_activate',
      arguments: { workflowName: 'loan', version: 'one' },
    })) as any;
    expect(bad.isError).toBe(true);
    expect(bad.content[0].text).toMatch(/Input validation error.*version/s);
    const missing = (await c.callTool({
      name: 'svc_ruleset_export',
      arguments: { workflowName: 'nothing-here' },
    })) as any;
    expect(missing.isError).toBe(true);
    expect(JSON.parse(missing.content[0].text)).toMatchObject({
      code: 'RULESET_NOT_FOUND',
      traceId: expect.any(String),
    });
    const invalid = (await c.callTool({
      name: 'svc_ruleset_save',
      arguments: { workflowName: 'loan', ruleSet: { rules: [{ id: 'x' }] } },
    })) as any;
    expect(JSON.parse(invalid.content[0].text).code).toBe('INVALID_RULESET');
  });

  it("keeps tenants apart: another tenant's tools see nothing of acme", async () => {
    const globex = await mcp({ 'x-tenant-id': 'globex' });
    expect(json(await globex.callTool({ name: 'svc_ruleset_list', arguments: {} }))).toEqual({
      rulesets: [],
    });
    const hidden = (await globex.callTool({
      name: 'svc_ruleset_export',
      arguments: { workflowName: 'loan' },
    })) as any;
    expect(JSON.parse(hidden.content[0].text).code).toBe('RULESET_NOT_FOUND');
  });

  describe('plain call { method, args }', () => {
    it.each(['/sse', '/mcp'])('answers { result } at %s', async (path) => {
      const res = await plain(path, { method: 'svc_ruleset_list', args: {} });
      expect(res.status).toBe(200);
      expect(res.body.result.rulesets.map((r: any) => r.workflowName)).toEqual(['loan']);
      const dry = await plain(path, {
        method: 'svc_ruleset_dry_run',
        args: { workflowName: 'loan', inputs: { amount: 1 } },
      });
      expect(dry.body.result).toMatchObject({ status: 'success', outputs: { seen: true } });
      expect(dry.body.result.outputs).not.toHaveProperty('tier');
      expect((await plain(path, { method: 'svc_ruleset_list' })).status).toBe(200); // args optional
    });

    it('saves with the actor from args, else X-Actor, and refuses what the HTTP route refuses', async () => {
      const saved = await plain(
        '/sse',
        { method: 'svc_ruleset_save', args: { workflowName: 'plain', ruleSet: ruleSet('x'), detail: 'd' } },
        { 'x-actor': 'carol' },
      );
      expect(saved).toMatchObject({ status: 200, body: { result: { version: 1, createdBy: 'carol' } } });
      const invalid = await plain('/sse', {
        method: 'svc_ruleset_save',
        args: { workflowName: 'plain', ruleSet: { rules: [{ id: 'x' }] } },
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body.code).toBe('INVALID_RULESET');
      expect(invalid.body.details[0].field).toMatch(/^args\.ruleSet/);
      const badName = await plain('/sse', {
        method: 'svc_ruleset_get_versions',
        args: { workflowName: 'no spaces' },
      });
      expect(badName).toMatchObject({ status: 400, body: { code: 'INVALID_WORKFLOW_NAME' } });
      const noVersion = await plain('/sse', {
        method: 'svc_ruleset_activate',
        args: { workflowName: 'plain', version: 9 },
      });
      expect(noVersion).toMatchObject({ status: 404, body: { code: 'VERSION_NOT_FOUND' } });
      // nothing half-written: still one version
      const versions = await plain('/sse', {
        method: 'svc_ruleset_get_versions',
        args: { workflowName: 'plain' },
      });
      expect(versions.body.result.totalVersions).toBe(1);
    });

    it('refuses an unknown tool, bad arguments and a body without method with 400', async () => {
      const unknown = await plain('/sse', { method: 'svc_nope', args: {} });
      expect(unknown).toMatchObject({
        status: 400,
        body: { code: 'UNKNOWN_TOOL', traceId: expect.any(String), details: [{ field: 'method' }] },
      });
      expect(unknown.body.error).toContain('svc_ruleset_save');
      const bad = await plain('/sse', { method: 'svc_ruleset_activate', args: { version: 0, extra: 1 } });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('INVALID_TOOL_ARGUMENTS');
      expect(bad.body.details.map((d: any) => d.field).sort()).toEqual([
        'args',
        'args.version',
        'args.workflowName',
      ]);
      const notObject = await plain('/sse', {
        method: 'svc_ruleset_dry_run',
        args: { workflowName: 'loan', inputs: 'x' },
      });
      expect(notObject.body).toMatchObject({
        code: 'INVALID_TOOL_ARGUMENTS',
        details: [{ field: 'args.inputs' }],
      });
      expect((await plain('/sse', { args: {} })).body.code).toBe('VALIDATION_FAILED');
      expect((await plain('/mcp', { method: 'svc_nope' })).status).toBe(400);
    });

    it('refuses GET on the stateless MCP endpoint with 405', async () => {
      const res = await fetch(`${sut.url}/mcp`, { headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
    });
  });
});

const SECRET = 'shared-hmac-secret-for-control-plane-tools-0123';

describe('control-plane tools with authorization enabled (the HTTP routes policies)', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        ...operatorAuthOverrides(SECRET),
      },
    });
  });
  afterAll(() => sut?.stop());

  const token = (name: string, roles: string[]) => operatorToken(SECRET, name, roles);

  const as = async (name: string, roles: string[]) => {
    const authorization = `Bearer ${await token(name, roles)}`;
    return async (method: string, args: unknown) => {
      const res = await fetch(`${sut.url}/sse`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization, 'x-tenant-id': 'other' },
        body: JSON.stringify({ method, args }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
  };

  it('needs a token (401) and the policy of the matching route: viewer reads, admin saves, approver activates', async () => {
    const anonymous = await fetch(`${sut.url}/sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'svc_ruleset_list', args: {} }),
    });
    expect(anonymous.status).toBe(401);

    const viewer = await as('vera', ['Viewer']);
    const admin = await as('adam', ['Admin']);
    const approver = await as('april', ['Approver']);
    const save = { workflowName: 'secure', ruleSet: ruleSet('s') };
    const denied = await viewer('svc_ruleset_save', save);
    expect(denied).toMatchObject({ status: 403, body: { code: 'FORBIDDEN' } });
    // the policy is checked before the arguments, as the HTTP guard runs before validation
    expect((await viewer('svc_ruleset_save', { junk: true })).status).toBe(403);
    expect((await approver('svc_ruleset_save', save)).status).toBe(403);
    const saved = await admin('svc_ruleset_save', save);
    expect(saved.body.result).toMatchObject({ version: 1, createdBy: 'adam' });
    expect((await viewer('svc_ruleset_activate', { workflowName: 'secure', version: 1 })).status).toBe(403);
    const activated = await approver('svc_ruleset_activate', { workflowName: 'secure', version: 1 });
    expect(activated.body.result).toMatchObject({ status: 'Active', activatedBy: 'april' });
    // the token's tenant wins over x-tenant-id
    const listed = await viewer('svc_ruleset_list', {});
    expect(listed.body.result.rulesets.map((r: any) => r.workflowName)).toEqual(['secure']);
    expect(
      (await viewer('svc_ruleset_dry_run', { workflowName: 'secure', inputs: { amount: 2000 } })).body.result,
    ).toMatchObject({ outputs: { tier: 's' } });
  });

  it('refuses over MCP too: a tool error with FORBIDDEN, and no connection without a token', async () => {
    const anonymous = new Client({ name: 't', version: '1' });
    await expect(
      anonymous.connect(new StreamableHTTPClientTransport(new URL(`${sut.url}/mcp`))),
    ).rejects.toThrow();
    const c = new Client({ name: 't', version: '1' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`${sut.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${await token('vera', ['Viewer'])}` } },
      }),
    );
    try {
      const denied = (await c.callTool({
        name: 'svc_ruleset_save',
        arguments: { workflowName: 'secure', ruleSet: ruleSet('v') },
      })) as any;
      expect(denied.isError).toBe(true);
      expect(JSON.parse(denied.content[0].text).code).toBe('FORBIDDEN');
      const list = json(await c.callTool({ name: 'svc_ruleset_list', arguments: {} }));
      expect(list.rulesets).toHaveLength(1);
    } finally {
      await c.close();
    }
  });
});
