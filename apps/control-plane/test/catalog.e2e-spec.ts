import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneService } from '../src';
import { A, B, client, operatorAuthOverrides, operatorToken } from './helpers';

const CATALOG = '/api/v1/rule-catalog';
const UI = '/api/v1/ui-catalog';

const contract = (contractName: string, fields: [string, string][]) => ({
  contractName,
  fields: fields.map(([path, dataType]) => ({ path, dataType })),
});

/** A manifest as the rule library generator writes it (one visible, one hidden rule). */
const acmeManifest = {
  schemaVersion: 1,
  sourceKey: 'acme.rules',
  generatedAt: '2026-01-01T00:00:00.000Z',
  rules: [
    {
      code: 'ACME_SCORE',
      displayName: 'ACME behaviour score',
      category: 'Scoring',
      tags: ['score', 'behaviour'],
      hidden: false,
      inputSchema: contract('AcmeScoreIn', [['customer.id', 'string']]),
      outputSchema: contract('AcmeScoreOut', [
        ['acmeScore', 'number'],
        ['isSuccess', 'boolean'],
      ]),
    },
    {
      code: 'ACME_INTERNAL',
      displayName: 'ACME internal probe',
      category: 'Scoring',
      tags: [],
      hidden: true,
      inputSchema: contract('ProbeIn', []),
      outputSchema: contract('ProbeOut', []),
    },
  ],
};

const staticContracts = {
  contracts: [
    {
      sourceType: 'rule',
      sourceCode: 'LEGACY_SCORE',
      request: contract('LegacyIn', [['account.number', 'string']]),
      response: contract('LegacyOut', [['legacyScore', 'number']]),
    },
    {
      sourceType: 'workflow',
      sourceCode: 'mainframe',
      request: contract('MainframeIn', [['txn.amount', 'number']]),
      response: contract('MainframeOut', [['approved', 'boolean']]),
    },
    {
      sourceType: 'decision-table',
      sourceCode: 'pricing',
      request: contract('PricingIn', [['segment', 'string']]),
      response: contract('PricingOut', [['rate', 'number']]),
    },
  ],
};

const riskBandTable = {
  name: 'risk-band',
  hitPolicy: 'First',
  inputColumns: [{ name: 'creditScore', type: 'number' }],
  outputColumns: [{ name: 'riskBand', type: 'string' }],
  rows: [
    { id: 'r1', inputConditions: { creditScore: '>= 700' }, outputs: { riskBand: 'low' } },
    { id: 'r2', inputConditions: { creditScore: '-' }, outputs: { riskBand: 'high' } },
  ],
};

/**
 * age ─on-true→ credit ─next→ band ─next→ offer ─always→ notify
 *  └─on-false→ reject ←on-error─┘
 */
const loanFlow = {
  type: 'flow-graph',
  schemaVersion: 1,
  start: 'age',
  inputs: [
    { path: 'applicant.age', dataType: 'number' },
    { path: 'applicant.creditScore', dataType: 'number' },
    { path: 'applicant.income', dataType: 'number' },
  ],
  nodes: [
    {
      id: 'age',
      kind: 'condition',
      config: { expression: 'applicant.age >= 18' },
      outputs: [],
      edges: [
        { kind: 'on-true', target: 'credit' },
        { kind: 'on-false', target: 'reject' },
      ],
    },
    {
      id: 'credit',
      kind: 'connector',
      config: { connector: 'CREDIT_MIN' },
      edges: [
        { kind: 'next', target: 'band' },
        { kind: 'on-error', target: 'reject' },
      ],
    },
    {
      id: 'band',
      kind: 'decision-table',
      config: { table: riskBandTable },
      outputs: [
        { path: 'riskBand', dataType: 'string' },
        { path: 'isSuccess', dataType: 'boolean' },
        { path: 'errorMessage', dataType: 'string' },
      ],
      edges: [{ kind: 'next', target: 'offer' }],
    },
    {
      id: 'offer',
      kind: 'feel-expression',
      config: { expression: 'applicant.income * 3', outputVariable: 'maxLoan' },
      outputs: [
        { path: 'maxLoan', dataType: 'number' },
        { path: 'result.success', dataType: 'boolean' },
        { path: 'message', dataType: 'string' },
      ],
      edges: [{ kind: 'always', target: 'notify' }],
    },
    {
      id: 'notify',
      kind: 'template',
      config: { template: 'Offer: {{ maxLoan }}', outputVariable: 'letter' },
    },
    {
      id: 'reject',
      kind: 'feel-expression',
      config: { expression: '"rejected"', outputVariable: 'decision' },
      outputs: [
        { path: 'decision', dataType: 'string' },
        { path: 'errorCode', dataType: 'string' },
      ],
    },
  ],
};

const paths = (c: { fields: { path: string }[] }) => c.fields.map((f) => f.path);

describe('rule catalog, contract metadata and ui catalog', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  let globex: ReturnType<typeof client>;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'catalog-e2e-'));
    mkdirSync(join(dir, 'manifests'));
    writeFileSync(join(dir, 'manifests', 'acme.json'), JSON.stringify(acmeManifest));
    writeFileSync(join(dir, 'manifests', 'notes.txt'), 'not a manifest');
    writeFileSync(join(dir, 'static.json'), JSON.stringify(staticContracts));
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'RuleControlPlane:RequireApproval': false,
        'RuleCatalog:ManifestPaths': JSON.stringify([join(dir, 'manifests')]),
        'RuleCatalog:StaticContractsPath': join(dir, 'static.json'),
      },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    globex = client(sut.url, { 'x-tenant-id': 'globex', 'x-actor': 'gus' });
    const save = async (wf: string, ruleSet: unknown, activateAfterSave = true) => {
      const res = await api.post(`${A}/${wf}`, { ruleSet, activateAfterSave });
      expect(res.status).toBe(200);
    };
    await save('loan-flow', loanFlow);
    await save('kyc-flow', {
      type: 'code-based',
      rules: [
        { code: 'KYC_OK' },
        { code: 'ACME_SCORE', id: 'score' },
        { code: 'DEBUG_ECHO', enabled: false },
      ],
    });
    await save('umbrella', {
      type: 'flow-graph',
      nodes: [
        {
          id: 'kyc',
          kind: 'sub-flow',
          config: { workflowName: 'kyc-flow' },
          edges: [{ kind: 'next', target: 'price' }],
        },
        { id: 'price', kind: 'decision-table', config: { tableRef: { name: 'pricing' } } },
      ],
    });
    await save('draft-only', { type: 'code-based', rules: [{ code: 'AGE_CHECK' }] }, false);
  });
  afterAll(async () => {
    await sut?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('GET /api/v1/rule-catalog', () => {
    it('groups visible rules by category (sorted), items sorted by code, with their manifest source', async () => {
      const res = await api.get(CATALOG);
      expect(res.status).toBe(200);
      expect(res.body.map((g: any) => [g.category, g.items.map((i: any) => i.code)])).toEqual([
        ['Compliance', ['COUNTRY_ALLOWED', 'KYC_OK']],
        ['Credit', ['CREDIT_MIN', 'DTI_MAX']],
        ['Eligibility', ['AGE_CHECK']],
        ['Scoring', ['ACME_SCORE']],
      ]);
      const credit = res.body[1].items[0];
      expect(credit).toMatchObject({
        code: 'CREDIT_MIN',
        displayName: 'Minimum credit score',
        category: 'Credit',
        tags: ['credit', 'score', 'lending'],
        hidden: false,
        sourceKey: 'arbiter.builtin',
        inputSchema: contract('CreditMinInput', [['applicant.creditScore', 'number']]),
        outputSchema: contract('CreditMinOutput', [
          ['creditApproved', 'boolean'],
          ['creditScoreGap', 'number'],
        ]),
      });
      expect(res.body[3].items[0].sourceKey).toBe('acme.rules');
    });

    it('includes hidden rules only with includeHidden=true', async () => {
      const res = await api.get(`${CATALOG}?includeHidden=true`);
      const codes = res.body.flatMap((g: any) => g.items.map((i: any) => i.code));
      expect(codes).toEqual(expect.arrayContaining(['DEBUG_ECHO', 'ACME_INTERNAL']));
      expect(res.body.map((g: any) => g.category)).toContain('Diagnostics');
      const off = await api.get(`${CATALOG}?includeHidden=false`);
      expect(off.body.flatMap((g: any) => g.items.map((i: any) => i.code))).not.toContain('DEBUG_ECHO');
    });

    it('filters by exact category (case-insensitive) and by search over code, display name and tags', async () => {
      const credit = await api.get(`${CATALOG}?category=credit`);
      expect(credit.body.map((g: any) => g.category)).toEqual(['Credit']);
      expect((await api.get(`${CATALOG}?category=Cred`)).body).toEqual([]);
      const byTag = await api.get(`${CATALOG}?search=LENDING`);
      expect(byTag.body).toEqual([
        { category: 'Credit', items: [expect.objectContaining({ code: 'CREDIT_MIN' })] },
      ]);
      const byName = await api.get(`${CATALOG}?search=${encodeURIComponent('debt-to')}`);
      expect(byName.body.flatMap((g: any) => g.items.map((i: any) => i.code))).toEqual(['DTI_MAX']);
      const byCode = await api.get(`${CATALOG}?search=kyc_`);
      expect(byCode.body.flatMap((g: any) => g.items.map((i: any) => i.code))).toEqual(['KYC_OK']);
      const both = await api.get(`${CATALOG}?category=scoring&search=probe&includeHidden=true`);
      expect(both.body.flatMap((g: any) => g.items.map((i: any) => i.code))).toEqual(['ACME_INTERNAL']);
    });

    it('refuses a malformed includeHidden (400 naming the field)', async () => {
      const res = await api.get(`${CATALOG}?includeHidden=maybe`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
      expect(JSON.stringify(res.body)).toContain('includeHidden');
    });

    it('GET /{code} returns one item (hidden ones too) or 404 RULE_NOT_FOUND', async () => {
      expect((await api.get(`${CATALOG}/KYC_OK`)).body).toMatchObject({
        code: 'KYC_OK',
        category: 'Compliance',
      });
      expect((await api.get(`${CATALOG}/ACME_INTERNAL`)).body).toMatchObject({
        hidden: true,
        sourceKey: 'acme.rules',
      });
      const missing = await api.get(`${CATALOG}/NOPE`);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('RULE_NOT_FOUND');
    });

    it('lists its manifest sources', async () => {
      const res = await api.get(`${CATALOG}/sources`);
      expect(res.body.sources).toEqual([
        expect.objectContaining({ sourceKey: 'arbiter.builtin', origin: 'built-in', rules: 6 }),
        expect.objectContaining({
          sourceKey: 'acme.rules',
          rules: 2,
          generatedAt: '2026-01-01T00:00:00.000Z',
        }),
      ]);
    });

    it('registers catalog codes for code-based rule sets; an unknown code is still a 400', async () => {
      const bad = await api.post(`${A}/bad-codes`, {
        ruleSet: { type: 'code-based', rules: [{ code: 'ACME_SCORE' }, { code: 'NOT_IN_CATALOG' }] },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('INVALID_RULESET');
      expect(JSON.stringify(bad.body)).toContain("unknown rule code 'NOT_IN_CATALOG'");
      expect(JSON.stringify(bad.body)).not.toContain("'ACME_SCORE'");
    });
  });

  describe('GET /api/v1/control-plane/rule-contracts/{sourceType}/{sourceCode}', () => {
    it('rule: the catalog schemas (manifest), else the static fallback, else 404', async () => {
      const res = await api.get(`${B}/rule-contracts/rule/DTI_MAX`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        sourceType: 'rule',
        sourceCode: 'DTI_MAX',
        resolvedFrom: 'manifest',
        sourceKey: 'arbiter.builtin',
        request: { contractName: 'DtiInput' },
        response: { contractName: 'DtiOutput' },
      });
      expect(paths(res.body.request)).toEqual(['applicant.monthlyDebt', 'applicant.monthlyIncome']);
      const legacy = await api.get(`${B}/rule-contracts/RULE/LEGACY_SCORE`);
      expect(legacy.body).toMatchObject({
        resolvedFrom: 'static',
        sourceKey: null,
        response: { contractName: 'LegacyOut' },
      });
      const missing = await api.get(`${B}/rule-contracts/rule/NOPE`);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('RULE_NOT_FOUND');
    });

    it('decision-table: composed from a table embedded in a workflow, else static, else 404', async () => {
      const res = await api.get(`${B}/rule-contracts/decision-table/risk-band`);
      expect(res.body).toMatchObject({
        resolvedFrom: 'composition',
        composedFrom: { workflowName: 'loan-flow', version: 1 },
        request: contract('risk-band.input', [['creditScore', 'number']]),
        response: contract('risk-band.output', [['riskBand', 'string']]),
      });
      expect((await api.get(`${B}/rule-contracts/decision-table/pricing`)).body.resolvedFrom).toBe('static');
      const missing = await api.get(`${B}/rule-contracts/decision-table/unknown`);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('DECISION_TABLE_NOT_FOUND');
    });

    it('workflow / flow: the flow contract with its nodes', async () => {
      const res = await api.get(`${B}/rule-contracts/workflow/loan-flow`);
      expect(res.body).toMatchObject({ sourceType: 'flow', resolvedFrom: 'composition' });
      expect(res.body.nodes.map((n: any) => n.nodeId)).toEqual([
        'age',
        'credit',
        'band',
        'offer',
        'notify',
        'reject',
      ]);
      expect((await api.get(`${B}/rule-contracts/flow/mainframe`)).body.resolvedFrom).toBe('static');
      expect((await api.get(`${B}/rule-contracts/flow/nowhere`)).body.code).toBe('FLOW_NOT_FOUND');
    });

    it('an unknown source type is 400 UNKNOWN_SOURCE_TYPE', async () => {
      const res = await api.get(`${B}/rule-contracts/spreadsheet/x`);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('UNKNOWN_SOURCE_TYPE');
    });
  });

  describe('GET /api/v1/control-plane/flow-contracts/{flowCode}', () => {
    it('composes the active version: inputs as request, union of node facts as response, per-node contracts', async () => {
      const res = await api.get(`${B}/flow-contracts/loan-flow`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        flowCode: 'loan-flow',
        resolvedFrom: 'composition',
        version: 1,
        versionStatus: 'Active',
        shape: 'flow-graph',
        request: contract('loan-flow.request', [
          ['applicant.age', 'number'],
          ['applicant.creditScore', 'number'],
          ['applicant.income', 'number'],
        ]),
      });
      expect(paths(res.body.response)).toEqual([
        'creditApproved',
        'creditScoreGap',
        'riskBand',
        'maxLoan',
        'letter',
        'decision',
      ]);
      const nodes = Object.fromEntries(res.body.nodes.map((n: any) => [n.nodeId, n]));
      expect(nodes.credit).toMatchObject({
        kind: 'connector',
        ruleCode: 'CREDIT_MIN',
        resolvedFrom: 'manifest',
        outputs: { contractName: 'CreditMinOutput' },
      });
      expect(nodes.band).toMatchObject({ resolvedFrom: 'declared', ruleCode: null });
      expect(paths(nodes.band.outputs)).toEqual(['riskBand', 'isSuccess', 'errorMessage']);
      expect(nodes.notify).toMatchObject({
        resolvedFrom: 'derived',
        outputs: contract('loan-flow.notify.outputs', [['letter', 'string']]),
      });
      expect(nodes.age).toMatchObject({ resolvedFrom: 'declared', outputs: { fields: [] } });
    });

    it("code-based flows: request = the rules' catalog inputs, a Draft-only workflow from its latest version", async () => {
      const kyc = await api.get(`${B}/flow-contracts/kyc-flow`);
      expect(paths(kyc.body.request)).toEqual([
        'customer.kycStatus',
        'customer.documentsVerified',
        'customer.id',
      ]);
      expect(paths(kyc.body.response)).toEqual(['kycPassed', 'acmeScore']);
      expect(kyc.body.nodes.map((n: any) => n.nodeId)).toEqual(['KYC_OK', 'score']);
      const draft = await api.get(`${B}/flow-contracts/draft-only`);
      expect(draft.body).toMatchObject({ resolvedFrom: 'composition', version: 1, versionStatus: 'Draft' });
    });

    it('falls back to the manifest first and to static config last; 404 FLOW_NOT_FOUND otherwise', async () => {
      expect((await api.get(`${B}/flow-contracts/ACME_SCORE`)).body).toMatchObject({
        resolvedFrom: 'manifest',
        sourceKey: 'acme.rules',
        nodes: [],
      });
      expect((await api.get(`${B}/flow-contracts/mainframe`)).body).toMatchObject({
        resolvedFrom: 'static',
        request: { contractName: 'MainframeIn' },
      });
      const missing = await api.get(`${B}/flow-contracts/nowhere`);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('FLOW_NOT_FOUND');
      expect((await api.get(`${B}/flow-contracts/bad%20name`)).status).toBe(400);
    });

    it('is tenant-scoped: another tenant does not see the flow', async () => {
      expect((await globex.get(`${B}/flow-contracts/loan-flow`)).body.code).toBe('FLOW_NOT_FOUND');
    });
  });

  describe('GET /api/v1/control-plane/rule-flow/{flowCode}/nodes/{nodeId}/authoring-contract', () => {
    const authoring = (node: string, flow = 'loan-flow') =>
      api.get(`${B}/rule-flow/${flow}/nodes/${node}/authoring-contract`);
    const inputs = ['applicant.age', 'applicant.creditScore', 'applicant.income'];

    it('the start node sees only the flow inputs', async () => {
      const res = await authoring('age');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        flowCode: 'loan-flow',
        nodeId: 'age',
        ruleCode: null,
        requestScope: { contractName: 'loan-flow.age.requestScope' },
        responseDelta: { contractName: 'loan-flow.age.responseDelta', fields: [] },
        upstreamNodeIds: [],
      });
      expect(paths(res.body.requestScope)).toEqual(inputs);
    });

    it('a connector node carries its rule code and the manifest outputs as its delta', async () => {
      const res = await authoring('credit');
      expect(res.body.ruleCode).toBe('CREDIT_MIN');
      expect(paths(res.body.requestScope)).toEqual(inputs);
      expect(res.body.responseDelta.fields).toEqual([
        { path: 'creditApproved', dataType: 'boolean' },
        { path: 'creditScoreGap', dataType: 'number' },
      ]);
    });

    it('downstream nodes see upstream facts; structural result fields are in neither scope nor delta', async () => {
      const band = await authoring('band');
      expect(paths(band.body.requestScope)).toEqual([...inputs, 'creditApproved', 'creditScoreGap']);
      expect(band.body.responseDelta.fields).toEqual([{ path: 'riskBand', dataType: 'string' }]);
      const offer = await authoring('offer');
      expect(paths(offer.body.requestScope)).toEqual([
        ...inputs,
        'creditApproved',
        'creditScoreGap',
        'riskBand',
      ]);
      expect(paths(offer.body.responseDelta)).toEqual(['maxLoan']);
      const notify = await authoring('notify');
      expect(notify.body.upstreamNodeIds).toEqual(['age', 'credit', 'band', 'offer']);
      expect(paths(notify.body.requestScope)).toEqual([
        ...inputs,
        'creditApproved',
        'creditScoreGap',
        'riskBand',
        'maxLoan',
      ]);
      expect(paths(notify.body.responseDelta)).toEqual(['letter']);
    });

    it('a branch target sees only its own ancestors (on-false and on-error edges)', async () => {
      const reject = await authoring('reject');
      expect(reject.body.upstreamNodeIds).toEqual(['age', 'credit']);
      expect(paths(reject.body.requestScope)).toEqual([...inputs, 'creditApproved', 'creditScoreGap']);
      expect(paths(reject.body.responseDelta)).toEqual(['decision']);
    });

    it('code-based: each rule sees the inputs plus the outputs of the rules before it', async () => {
      const res = await authoring('score', 'kyc-flow');
      expect(res.body).toMatchObject({ ruleCode: 'ACME_SCORE', upstreamNodeIds: ['KYC_OK'] });
      expect(paths(res.body.requestScope)).toContain('kycPassed');
      expect(paths(res.body.responseDelta)).toEqual(['acmeScore']);
    });

    it('404 NODE_NOT_FOUND and FLOW_NOT_FOUND', async () => {
      const node = await authoring('ghost');
      expect(node.status).toBe(404);
      expect(node.body.code).toBe('NODE_NOT_FOUND');
      const flow = await authoring('age', 'nowhere');
      expect(flow.status).toBe(404);
      expect(flow.body.code).toBe('FLOW_NOT_FOUND');
    });
  });

  describe('ui catalog', () => {
    it('apis: the control plane routes with method, path, summary and policies', async () => {
      const res = await api.get(`${UI}/apis`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(res.body.apis.length);
      const find = (method: string, path: string) =>
        res.body.apis.find((a: any) => a.method === method && a.path === path);
      expect(find('GET', '/api/v1/rule-catalog/{code}')).toMatchObject({
        summary: expect.any(String),
        policies: ['cp.viewer'],
        tags: ['rule catalog'],
      });
      expect(find('POST', '/api/v1/ui-catalog/snapshots/capture')).toMatchObject({ policies: ['cp.admin'] });
      expect(find('GET', '/api/v1/info')).toMatchObject({ policies: ['public'] });
      expect(find('GET', '/api/v1/control-plane/metrics')).toMatchObject({
        policies: ['control-plane.metrics'],
      });
      expect(find('POST', '/api/v1/rule-engine/rulesets/{workflowName}')).toBeDefined();
      expect(res.body.apis.filter((a: any) => a.method === 'HEAD' || a.path.startsWith('/docs'))).toEqual([]);
    });

    it('bindings: one per workflow with an active version, with the rules, tables and sub flows it uses', async () => {
      const res = await api.get(`${UI}/bindings`);
      expect(res.body).toMatchObject({
        tenantId: 'acme',
        pathTemplate: '/api/v1/rule-engine/execute/{workflowName}',
        total: 3,
      });
      expect(res.body.bindings).toEqual([
        {
          method: 'POST',
          path: '/api/v1/rule-engine/execute/kyc-flow',
          workflowName: 'kyc-flow',
          activeVersion: 1,
          shape: 'code-based',
          ruleCodes: ['ACME_SCORE', 'KYC_OK'],
          decisionTables: [],
          subFlows: [],
        },
        expect.objectContaining({
          workflowName: 'loan-flow',
          ruleCodes: ['CREDIT_MIN'],
          decisionTables: ['risk-band'],
        }),
        expect.objectContaining({
          workflowName: 'umbrella',
          decisionTables: ['pricing'],
          subFlows: ['kyc-flow'],
        }),
      ]);
      expect((await globex.get(`${UI}/bindings`)).body).toMatchObject({
        tenantId: 'globex',
        bindings: [],
        total: 0,
      });
    });

    it('graph: api, workflow, rule and table nodes with their edges', async () => {
      const res = await api.get(`${UI}/graph`);
      const ids = res.body.nodes.map((n: any) => n.id);
      expect(ids).toEqual(
        expect.arrayContaining([
          'api:POST /api/v1/rule-engine/execute/loan-flow',
          'workflow:loan-flow',
          'rule:CREDIT_MIN',
          'table:risk-band',
          'table:pricing',
        ]),
      );
      expect(ids).not.toContain('workflow:draft-only');
      expect(new Set(ids).size).toBe(ids.length);
      expect(res.body.edges).toEqual(
        expect.arrayContaining([
          {
            from: 'api:POST /api/v1/rule-engine/execute/loan-flow',
            to: 'workflow:loan-flow',
            kind: 'executes',
          },
          { from: 'workflow:loan-flow', to: 'rule:CREDIT_MIN', kind: 'uses-rule' },
          { from: 'workflow:loan-flow', to: 'table:risk-band', kind: 'uses-table' },
          { from: 'workflow:umbrella', to: 'workflow:kyc-flow', kind: 'calls-sub-flow' },
        ]),
      );
      expect(res.body.nodes.find((n: any) => n.id === 'workflow:kyc-flow')).toEqual({
        id: 'workflow:kyc-flow',
        type: 'workflow',
        label: 'kyc-flow',
      });
    });

    it('snapshots: capture persists bindings + graph; list newest first; tenant-isolated', async () => {
      const first = await api.post(`${UI}/snapshots/capture`, { label: 'before release' });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        capturedBy: 'alice',
        label: 'before release',
        bindingCount: 3,
      });
      expect(first.body.bindings).toHaveLength(3);
      expect(first.body.graph.nodes.length).toBe(first.body.nodeCount);
      await new Promise((r) => setTimeout(r, 5));
      const second = await api.post(`${UI}/snapshots/capture`);
      expect(second.status).toBe(201);
      expect(second.body.label).toBeNull();

      const list = await api.get(`${UI}/snapshots`);
      expect(list.body).toMatchObject({ total: 2, page: 1, pageSize: 20 });
      expect(list.body.items.map((s: any) => s.id)).toEqual([second.body.id, first.body.id]);
      expect(list.body.items[0].bindings).toBeUndefined();
      const paged = await api.get(`${UI}/snapshots?page=2&pageSize=1`);
      expect(paged.body.items.map((s: any) => s.id)).toEqual([first.body.id]);

      const one = await api.get(`${UI}/snapshots/${first.body.id}`);
      expect(one.body).toEqual(first.body);

      expect((await globex.get(`${UI}/snapshots`)).body).toMatchObject({ items: [], total: 0 });
      const foreign = await globex.get(`${UI}/snapshots/${first.body.id}`);
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('SNAPSHOT_NOT_FOUND');
      const theirs = await globex.post(`${UI}/snapshots/capture`, { label: 'globex' });
      expect(theirs.body).toMatchObject({ tenantId: 'globex', bindingCount: 0 });
      expect((await api.get(`${UI}/snapshots`)).body.total).toBe(2);
    });

    it('refuses bad snapshot input without writing anything', async () => {
      const long = await api.post(`${UI}/snapshots/capture`, { label: 'x'.repeat(201) });
      expect(long.status).toBe(400);
      expect(long.body.code).toBe('VALIDATION_FAILED');
      expect((await api.get(`${UI}/snapshots?pageSize=0`)).status).toBe(400);
      expect((await api.get(`${UI}/snapshots/not-a-uuid`)).body.code).toBe('SNAPSHOT_NOT_FOUND');
      expect((await api.get(`${UI}/snapshots`)).body.total).toBe(2);
    });
  });
});

describe('catalog configuration errors (startup refused before anything starts)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'catalog-bad-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const start = (overrides: Record<string, string>) =>
    startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', { overrides });
  const file = (name: string, content: unknown) => {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
    return join(dir, name);
  };

  it('a missing manifest path', async () => {
    await expect(
      start({ 'RuleCatalog:ManifestPaths': JSON.stringify([join(dir, 'missing.json')]) }),
    ).rejects.toThrow(/RuleCatalog:ManifestPaths: '.*missing\.json' does not exist/);
  });

  it('an invalid manifest (with the offending path) or one that is not JSON', async () => {
    const bad = file('bad.json', { ...acmeManifest, rules: [{ ...acmeManifest.rules[0], category: '' }] });
    await expect(start({ 'RuleCatalog:ManifestPaths': JSON.stringify([bad]) })).rejects.toThrow(
      /RuleCatalog:ManifestPaths: .*bad\.json: invalid rule manifest .*rules\[0\]\.category: required/,
    );
    const text = file('text.json', 'not json');
    await expect(start({ 'RuleCatalog:ManifestPaths': text })).rejects.toThrow(/RuleCatalog:ManifestPaths/);
  });

  it('one code in two configured manifests', async () => {
    const one = file('one.json', acmeManifest);
    const two = file('two.json', { ...acmeManifest, sourceKey: 'other.rules' });
    await expect(start({ 'RuleCatalog:ManifestPaths': JSON.stringify([one, two]) })).rejects.toThrow(
      /rule code 'ACME_SCORE' is defined by 'acme.rules' .* and again by 'other.rules'/,
    );
  });

  it('a bad static contracts file', async () => {
    const bad = file('static-bad.json', { contracts: [{ sourceType: 'spreadsheet', sourceCode: 'x' }] });
    await expect(start({ 'RuleCatalog:StaticContractsPath': bad })).rejects.toThrow(
      /RuleCatalog:StaticContractsPath: .* contracts\[0\]\.sourceType: must be one of/,
    );
  });
});

describe('catalog policies (authorization enabled)', () => {
  const SECRET = 'shared-hmac-secret-for-catalog-tests-0123456789';
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        ...operatorAuthOverrides(SECRET),
      },
    });
  });
  afterAll(() => sut?.stop());

  const as = async (name: string, roles: string[]) => {
    const token = await operatorToken(SECRET, name, roles);
    return client(sut.url, { authorization: `Bearer ${token}` });
  };

  it('Viewer reads the catalog, contracts and ui catalog; only Admin captures snapshots', async () => {
    expect((await client(sut.url).get(CATALOG)).status).toBe(401);
    const viewer = await as('vera', ['Viewer']);
    const admin = await as('adam', ['Admin']);
    for (const path of [
      CATALOG,
      `${CATALOG}/KYC_OK`,
      `${B}/rule-contracts/rule/KYC_OK`,
      `${UI}/apis`,
      `${UI}/bindings`,
      `${UI}/graph`,
      `${UI}/snapshots`,
    ])
      expect([path, (await viewer.get(path)).status]).toEqual([path, 200]);
    const denied = await viewer.post(`${UI}/snapshots/capture`, {});
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('FORBIDDEN');
    const captured = await admin.post(`${UI}/snapshots/capture`, {});
    expect(captured.status).toBe(201);
    expect(captured.body).toMatchObject({ capturedBy: 'adam', tenantId: 'acme' });
    expect((await viewer.get(`${UI}/snapshots`)).body.total).toBe(1);
  });
});
