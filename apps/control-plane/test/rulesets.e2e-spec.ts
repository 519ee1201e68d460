import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { load } from 'js-yaml';
import { controlPlaneService, InMemoryRuleRegistry } from '../src';
import { A, B, client, rulesDoc } from './helpers';

describe('rule sets with approval off (RuleControlPlane:RequireApproval=false)', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': false },
    });
    sut.service.app.get(InMemoryRuleRegistry).register('CREDIT_MIN', 'KYC_OK');
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
  });
  afterAll(() => sut?.stop());

  it('saves the rules form as consecutive immutable Draft versions: POST /{workflow}/save', async () => {
    const first = await api.post(`${A}/loan/save`, { ...rulesDoc(2), changeDescription: 'first' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      version: 1,
      status: 'draft',
      createdBy: 'alice',
      createdAt: expect.any(String),
    });
    const second = await api.post(`${A}/loan/save`, { ...rulesDoc(3), changeDescription: 'second' });
    expect(second.body.version).toBe(2);
    const v1 = await api.get(`${A}/loan/versions/1`);
    expect(v1.status).toBe(200);
    expect(v1.body).toMatchObject({
      workflowName: 'loan',
      version: 1,
      status: 'Draft',
      changeDescription: 'first',
    });
    expect(v1.body.rules).toHaveLength(2);
  });

  it('saves and activates directly with activateAfterSave (ruleSet form), archiving the previous active', async () => {
    const saved = await api.post(`${A}/pricing`, {
      ruleSet: rulesDoc(1),
      activateAfterSave: true,
      detail: 'go',
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ version: 1, status: 'active', activated: true });
    const again = await api.post(`${B}/rulesets/pricing`, { ruleSet: rulesDoc(2), activateAfterSave: true });
    expect(again.body).toMatchObject({ version: 2, status: 'active' });
    const versions = await api.get(`${A}/pricing/versions`);
    expect(versions.body.activeVersion).toBe(2);
    expect(versions.body.versions.map((v: any) => [v.version, v.status])).toEqual([
      [2, 'Active'],
      [1, 'Archived'],
    ]);
    const audit = await api.get(`${A}/pricing/audit?page=1&pageSize=20`);
    expect(audit.body.entries.map((e: any) => e.action)).toEqual([
      'ACTIVATE',
      'ARCHIVE',
      'SAVE',
      'ACTIVATE',
      'SAVE',
    ]);
    expect(audit.body).toMatchObject({ total: 5, page: 1 });
    expect(audit.body.entries[0]).toMatchObject({
      actor: 'alice',
      version: 2,
      status: 'success',
      timestamp: expect.any(String),
    });
  });

  it('activates a Draft directly (both /api/v1/rule-engine activate forms and the /api/v1/control-plane form)', async () => {
    await api.post(`${A}/direct/save`, rulesDoc(1));
    await api.post(`${A}/direct/save`, rulesDoc(2));
    await api.post(`${A}/direct/save`, rulesDoc(3));
    const one = await api.post(`${A}/direct/activate`, { version: 1, detail: 'first', actor: 'bob' });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      workflowName: 'direct',
      version: 1,
      status: 'Active',
      activatedBy: 'bob',
      previousActiveVersion: null,
    });
    const two = await api.post(`${A}/direct/activate/2`);
    expect(two.body).toMatchObject({ version: 2, previousActiveVersion: 1 });
    const three = await api.post(`${B}/rulesets/direct/3/activate`);
    expect(three.body).toMatchObject({ version: 3, previousActiveVersion: 2 });
    // an Archived version is history: activating it again is a wrong-state transition
    const archived = await api.post(`${A}/direct/activate/1`);
    expect(archived.status).toBe(409);
    expect(archived.body).toMatchObject({ code: 'INVALID_STATE_TRANSITION', traceId: expect.any(String) });
    const active = await api.post(`${A}/direct/activate/3`);
    expect(active.status).toBe(409);
  });

  it('lists rule sets (/api/v1/rule-engine and /api/v1/control-plane routes), versions with limit/offset and activeVersion', async () => {
    const list = await api.get(`${A}`);
    expect(list.status).toBe(200);
    const loan = list.body.rulesets.find((r: any) => r.workflowName === 'loan');
    expect(loan).toMatchObject({
      workflowName: 'loan',
      activeVersion: null,
      totalVersions: 2,
      modifiedBy: 'alice',
      lastModified: expect.any(String),
    });
    expect((await api.get(`${B}/rulesets`)).body).toEqual(list.body);
    const page = await api.get(`${A}/direct/versions?limit=1&offset=1`);
    expect(page.body).toMatchObject({ activeVersion: 3, totalVersions: 3, limit: 1, offset: 1 });
    expect(page.body.versions.map((v: any) => v.version)).toEqual([2]);
    expect((await api.get(`${B}/rulesets/direct/versions`)).body.versions).toHaveLength(3);
    // another tenant sees nothing (row-level security)
    expect((await api.get(`${A}`, { 'x-tenant-id': 'globex' })).body.rulesets).toEqual([]);
    expect((await api.get(`${A}/loan/versions`, { 'x-tenant-id': 'globex' })).status).toBe(404);
  });

  it('answers 404 for an unknown workflow or version and 400 for a bad version number', async () => {
    const wf = await api.get(`${A}/nope/versions`);
    expect(wf.status).toBe(404);
    expect(wf.body.code).toBe('RULESET_NOT_FOUND');
    const v = await api.get(`${A}/loan/versions/99`);
    expect(v.status).toBe(404);
    expect(v.body.code).toBe('VERSION_NOT_FOUND');
    expect((await api.get(`${A}/loan/versions/abc`)).status).toBe(400);
    expect((await api.post(`${A}/loan/activate/99`)).status).toBe(404);
    expect((await api.post(`${A}/nope/activate`, { version: 1 })).status).toBe(404);
  });

  it('refuses invalid payloads with 400 and precise paths, saving nothing', async () => {
    const bad = await api.post(`${A}/loan/save`, {
      rules: [
        { id: 'a', name: 'A', condition: 'x > (1' },
        { id: 'a', name: '', condition: 'y' },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_RULESET');
    expect(bad.body.details).toEqual(
      expect.arrayContaining([
        { field: 'rules[0].condition', message: expect.stringMatching(/FEEL syntax error at line 1/) },
        { field: 'rules[1].id', message: expect.stringContaining("duplicate rule id 'a'") },
        { field: 'rules[1].name', message: expect.any(String) },
      ]),
    );
    const missing = await api.post(`${A}/loan`, { activateAfterSave: false });
    expect(missing.status).toBe(400);
    expect((await api.post(`${A}/loan`, { ruleSet: { something: 1 } })).status).toBe(400);
    expect((await api.get(`${A}/loan/versions`)).body.totalVersions).toBe(2);
  });

  it('refuses a body nested 5,000 deep with 400 BODY_TOO_DEEP (not a stack overflow), saving nothing', async () => {
    const res = await fetch(`${sut.url}${A}/loan/save`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme' },
      body: `{"rules":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('BODY_TOO_DEEP');
    expect((await api.get(`${A}/loan/versions`)).body.totalVersions).toBe(2);
  });

  it('validates all three shapes without saving: POST /{workflow}/validate', async () => {
    const legacy = {
      WorkflowName: 'loan',
      Rules: [
        { RuleName: 'Adult', Expression: 'input1.age >= 18', SuccessEvent: 'ok' },
        {
          RuleName: 'Combo',
          Operator: 'AndAlso',
          Rules: [
            { RuleName: 'A', Expression: 'input1.a == 1' },
            { RuleName: 'B', Expression: 'input1.b == 2' },
          ],
        },
      ],
    };
    const ok = await api.post(`${A}/loan/validate`, { ruleSet: legacy });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, shape: 'legacy', errors: [] });
    const badLegacy = await api.post(`${A}/loan/validate`, {
      ruleSet: { WorkflowName: 'loan', Rules: [{ RuleName: 'N', Rules: [{ RuleName: 'x' }] }] },
    });
    expect(badLegacy.body.valid).toBe(false);
    expect(badLegacy.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'ruleSet.Rules[0].Operator', message: expect.any(String) },
        { path: 'ruleSet.Rules[0].Rules[0].Expression', message: expect.any(String) },
      ]),
    );
    const code = await api.post(`${A}/loan/validate`, {
      ruleSet: {
        type: 'code-based',
        rules: [{ code: 'CREDIT_MIN', parameters: { min: 600 } }, { code: 'NOPE' }],
      },
    });
    expect(code.body).toMatchObject({ valid: false, shape: 'code-based' });
    expect(code.body.errors).toEqual([
      { path: 'ruleSet.rules[1].code', message: "unknown rule code 'NOPE'" },
    ]);
    const spec = await api.post(`${A}/loan/validate`, { ...rulesDoc(1), decisionTables: [] });
    expect(spec.body).toMatchObject({ valid: true, shape: 'rules' });
    // The rules form speaks FEEL by default; C#-style lambdas only with expressionLanguage 'lambda'.
    const feel = await api.post(`${A}/loan/validate`, {
      rules: [{ id: 'a', name: 'A', condition: 'age >' }],
    });
    expect(feel.body.errors[0]).toMatchObject({
      path: 'rules[0].condition',
      message: expect.stringMatching(/FEEL syntax error at line 1, column \d+/),
    });
    expect((await api.get(`${A}/loan/versions`)).body.totalVersions).toBe(2);
  });

  it('saves code-based and legacy rule sets', async () => {
    const code = await api.post(`${A}/kyc`, {
      ruleSet: { rules: [{ code: 'KYC_OK' }, { id: 'c2', code: 'CREDIT_MIN', parameters: { min: 1 } }] },
    });
    expect(code.status).toBe(200);
    expect(code.body.shape).toBe('code-based');
    const unknown = await api.post(`${A}/kyc`, {
      ruleSet: { type: 'code-based', rules: [{ code: 'GHOST' }] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.details).toEqual([
      { field: 'ruleSet.rules[0].code', message: "unknown rule code 'GHOST'" },
    ]);
    const legacy = await api.post(`${A}/legacy`, {
      ruleSet: { WorkflowName: 'legacy', Rules: [{ RuleName: 'R', Expression: 'a == 1' }] },
    });
    expect(legacy.body).toMatchObject({ version: 1, shape: 'legacy' });
    const doc = await api.get(`${A}/legacy/versions/1`);
    expect(doc.body.rules).toEqual([{ id: 'R', name: 'R', Expression: 'a == 1' }]);
  });

  it('exports JSON and YAML, the active version when version is omitted', async () => {
    const noActive = await api.get(`${A}/loan/export`);
    expect(noActive.status).toBe(404);
    expect(noActive.body.code).toBe('NO_ACTIVE_VERSION');
    const active = await api.get(`${A}/pricing/export`);
    expect(active.status).toBe(200);
    expect(active.headers.get('x-ruleset-version')).toBe('2');
    expect(active.body).toEqual(rulesDoc(2));
    const v1 = await api.get(`${A}/pricing/export?version=1`);
    expect(v1.body).toEqual(rulesDoc(1));
    const yaml = await api.post(`${A}/pricing/export`, { format: 'yaml' });
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toContain('yaml');
    expect(load(yaml.text)).toEqual(rulesDoc(2));
    const json = await api.post(`${A}/pricing/export`, { format: 'json', version: 1 });
    expect(json.body).toEqual(rulesDoc(1));
    expect((await api.post(`${A}/pricing/export`, { format: 'xml' })).status).toBe(400);
    const b = await api.get(`${B}/rulesets/pricing/export`);
    expect(b.body).toEqual(rulesDoc(2));
  });

  it('diffs two versions (GET and POST): added, modified with fieldChanges, removed', async () => {
    await api.post(`${A}/diffy/save`, {
      rules: [
        { id: 'a', name: 'A', condition: 'x > 1', output: { t: 1 } },
        { id: 'b', name: 'B', condition: 'y > 1', output: {} },
      ],
    });
    await api.post(`${A}/diffy/save`, {
      rules: [
        { id: 'a', name: 'A', condition: 'x > 2', output: { t: 1 } },
        { id: 'c', name: 'C', condition: 'z', output: {} },
      ],
    });
    const diff = await api.get(`${A}/diffy/versions/1/diff/2`);
    expect(diff.status).toBe(200);
    expect(diff.body).toEqual({
      fromVersion: 1,
      toVersion: 2,
      changes: {
        added: [{ id: 'c', name: 'C' }],
        modified: [{ id: 'a', name: 'A', fieldChanges: { condition: { old: 'x > 1', new: 'x > 2' } } }],
        removed: [{ id: 'b', name: 'B' }],
      },
    });
    expect((await api.post(`${A}/diffy/versions/1/diff/2`)).body).toEqual(diff.body);
    expect((await api.get(`${A}/diffy/versions/1/diff/9`)).status).toBe(404);
  });

  it('has no approval routes when approval is off (404)', async () => {
    await api.post(`${A}/plain/save`, rulesDoc(1));
    for (const path of [
      `${B}/rulesets/plain/1/submit`,
      `${B}/approvals/plain/1/approve`,
      `${B}/rulesets/plain/1/reject`,
    ]) {
      const res = await api.post(path, { detail: 'x', reason: 'y' });
      expect(res.status).toBe(404);
    }
  });

  it('gives 50 concurrent saves of one workflow 50 distinct consecutive versions', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        api.post(`${A}/hot/save`, { ...rulesDoc(1), changeDescription: `c${i}` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    const versions = results.map((r) => r.body.version).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const listed = await api.get(`${A}/hot/versions?limit=100`);
    expect(listed.body.totalVersions).toBe(50);
    expect(listed.body.versions).toHaveLength(50);
    const verify = await api.get(`${A}/hot/audit/verify`);
    expect(verify.body).toMatchObject({ valid: true });
  });

  it('lists tenants and publishes the rule-flow contract', async () => {
    await api.post(`${A}/other/save`, rulesDoc(1), { 'x-tenant-id': 'globex' });
    const tenants = await api.get('/api/v1/tenants');
    expect(tenants.status).toBe(200);
    expect(tenants.body.tenants.map((t: any) => t.tenantId)).toEqual(['acme', 'globex']);
    const contract = await api.get('/api/v1/rule-flow/contract');
    expect(contract.status).toBe(200);
    expect(contract.body.schema.$schema).toContain('2020-12');
    expect(contract.body.nodeKinds).toEqual([
      'condition',
      'decision-table',
      'sub-flow',
      'connector',
      'javascript-condition',
      'feel-expression',
      'template',
    ]);
    expect(contract.body.edgeKinds).toEqual(expect.arrayContaining(['on-false', 'on-error', 'always']));
  });

  it('invalidates the cache (audited, revision bumped): POST /control-plane/cache/invalidate', async () => {
    const cached = await api.get(`${B}/cache/pricing`);
    expect(cached.body).toMatchObject({ activeVersion: 2 });
    const before = (await api.get(`${B}/metrics`)).body;
    const res = await api.post(`${B}/cache/invalidate`, { workflowName: 'pricing', detail: 'manual' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      tenantId: 'acme',
      workflowName: 'pricing',
      invalidated: [{ workflowName: 'pricing', revision: expect.any(Number) }],
    });
    const after = (await api.get(`${B}/metrics`)).body;
    expect(after.cache.evictions).toBeGreaterThan(before.cache.evictions);
    expect(after).toMatchObject({
      cache: { hits: expect.any(Number), misses: expect.any(Number), size: expect.any(Number) },
      hotReloadLagMs: expect.any(Object),
    });
    const audit = await api.get(`${A}/pricing/audit`);
    expect(audit.body.entries[0]).toMatchObject({ action: 'INVALIDATE', detail: 'manual' });
    const all = await api.post(`${B}/cache/invalidate`, {});
    expect(all.body.invalidated.length).toBeGreaterThan(3);
    expect((await api.post(`${B}/cache/invalidate`, { workflowName: 'ghost' })).status).toBe(404);
  });
});

describe('rule sets with approval required (the production default)', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  const as = (actor: string) => ({ 'x-actor': actor });

  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'RuleControlPlane:RequireApproval': true },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'maker' });
  });
  afterAll(() => sut?.stop());

  it('never activates on save, even with activateAfterSave', async () => {
    const saved = await api.post(`${B}/rulesets/loan`, { ruleSet: rulesDoc(1), activateAfterSave: true });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ version: 1, status: 'draft', activated: false });
    expect((await api.get(`${A}/loan/versions`)).body.activeVersion).toBeNull();
  });

  it('refuses to activate a Draft or PendingApproval version (409)', async () => {
    const draft = await api.post(`${A}/loan/activate/1`);
    expect(draft.status).toBe(409);
    expect(draft.body.code).toBe('APPROVAL_REQUIRED');
  });

  it('walks Draft → PendingApproval → Approved → Active → Archived, with every rule of the state table', async () => {
    // submit needs detail
    expect((await api.post(`${B}/rulesets/loan/1/submit`, {})).status).toBe(400);
    const submitted = await api.post(`${B}/rulesets/loan/1/submit`, { detail: 'please review' });
    expect(submitted.status).toBe(200);
    expect(submitted.body).toMatchObject({ version: 1, status: 'PendingApproval', submittedBy: 'maker' });
    // submitting again: wrong state
    expect((await api.post(`${B}/rulesets/loan/1/submit`, { detail: 'again' })).status).toBe(409);
    // pending approvals
    const pending = await api.get(`${B}/rulesets/pending-approvals`);
    expect(pending.body.items).toEqual([
      expect.objectContaining({ workflowName: 'loan', version: 1, submittedBy: 'maker' }),
    ]);
    // activation before approval
    expect((await api.post(`${A}/loan/activate`, { version: 1 })).body.code).toBe('APPROVAL_REQUIRED');
    // self-approval
    const self = await api.post(`${B}/rulesets/loan/1/approve`, { detail: 'lgtm' });
    expect(self.status).toBe(409);
    expect(self.body.code).toBe('SELF_APPROVAL');
    // approve needs detail
    expect((await api.post(`${B}/rulesets/loan/1/approve`, {}, as('checker'))).status).toBe(400);
    const approved = await api.post(`${B}/approvals/loan/1/approve`, { detail: 'lgtm' }, as('checker'));
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'Approved', approvedBy: 'checker' });
    // reject after approval: wrong state
    expect((await api.post(`${B}/rulesets/loan/1/reject`, { reason: 'late' }, as('checker'))).status).toBe(
      409,
    );
    const activated = await api.post(`${B}/rulesets/loan/1/activate`, {}, as('checker'));
    expect(activated.status).toBe(200);
    expect(activated.body).toMatchObject({ version: 1, status: 'Active' });
    // approving an already-active version
    const again = await api.post(`${B}/rulesets/loan/1/approve`, { detail: 'again' }, as('checker'));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('INVALID_STATE_TRANSITION');
    // version 2 through the approvals aliases; activating it archives version 1
    await api.post(`${A}/loan/save`, rulesDoc(2));
    await api.post(`${B}/approvals/loan/2/submit`, { detail: 'v2' });
    await api.post(`${B}/approvals/loan/2/approve`, { detail: 'ok' }, as('checker'));
    await api.post(`${A}/loan/activate`, { version: 2, detail: 'ship', actor: 'checker' });
    const versions = await api.get(`${A}/loan/versions`);
    expect(versions.body.versions.map((v: any) => [v.version, v.status])).toEqual([
      [2, 'Active'],
      [1, 'Archived'],
    ]);
    const audit = await api.get(`${A}/loan/audit?pageSize=50`);
    expect(audit.body.entries.map((e: any) => e.action).reverse()).toEqual([
      'SAVE',
      'SUBMIT',
      'APPROVE',
      'ACTIVATE',
      'SAVE',
      'SUBMIT',
      'APPROVE',
      'ARCHIVE',
      'ACTIVATE',
    ]);
  });

  it('rejects back to Draft with a mandatory reason (reason or detail), then allows resubmission', async () => {
    await api.post(`${A}/loan/save`, rulesDoc(3));
    await api.post(`${B}/rulesets/loan/3/submit`, { detail: 'v3' });
    const noReason = await api.post(`${B}/rulesets/loan/3/reject`, {}, as('checker'));
    expect(noReason.status).toBe(400);
    expect(noReason.body.code).toBe('REJECTION_REASON_REQUIRED');
    const rejected = await api.post(
      `${B}/approvals/loan/3/reject`,
      { reason: 'missing tests' },
      as('checker'),
    );
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'Draft', rejectedBy: 'checker', reason: 'missing tests' });
    const doc = await api.get(`${A}/loan/versions/3`);
    expect(doc.body).toMatchObject({ status: 'Draft', rejectionReason: 'missing tests' });
    // rejecting a Draft: wrong state
    expect((await api.post(`${B}/rulesets/loan/3/reject`, { detail: 'again' }, as('checker'))).status).toBe(
      409,
    );
    // detail is accepted as the reason
    await api.post(`${B}/rulesets/loan/3/submit`, { detail: 'fixed' });
    const viaDetail = await api.post(
      `${B}/rulesets/loan/3/reject`,
      { detail: 'still no tests' },
      as('checker'),
    );
    expect(viaDetail.body).toMatchObject({ status: 'Draft', reason: 'still no tests' });
    const audit = await api.get(`${A}/loan/audit?pageSize=2`);
    expect(audit.body.entries[0]).toMatchObject({
      action: 'REJECT',
      detail: 'still no tests',
      actor: 'checker',
    });
  });

  it('denies a version for good with final: true (Rejected is terminal: no resubmission, no activation)', async () => {
    const saved = await api.post(`${A}/loan/save`, rulesDoc(4));
    const v = saved.body.version;
    await api.post(`${B}/rulesets/loan/${v}/submit`, { detail: 'v4' });
    const denied = await api.post(
      `${B}/rulesets/loan/${v}/reject`,
      { reason: 'wrong approach', final: true },
      as('checker'),
    );
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'Rejected', reason: 'wrong approach' });
    expect((await api.post(`${B}/rulesets/loan/${v}/submit`, { detail: 'retry' })).status).toBe(409);
    expect((await api.post(`${B}/rulesets/loan/${v}/approve`, { detail: 'ok' }, as('checker'))).status).toBe(
      409,
    );
    const activate = await api.post(`${A}/loan/activate/${v}`, {}, as('checker'));
    expect(activate.status).toBe(409);
    expect(activate.body.code).toBe('INVALID_STATE_TRANSITION');
    expect((await api.get(`${A}/loan/versions/${v}`)).body.status).toBe('Rejected');
  });

  it('answers 404 for approval of an unknown version', async () => {
    expect((await api.post(`${B}/rulesets/loan/42/submit`, { detail: 'x' })).status).toBe(404);
    expect((await api.post(`${B}/rulesets/ghost/1/submit`, { detail: 'x' })).status).toBe(404);
  });
});

describe('audit key configuration', () => {
  it('stops at startup naming RuleControlPlane:AuditPrivateKeyPemPath when the file is not a private key', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const file = join(mkdtempSync(join(tmpdir(), 'arbiter-key-')), 'bad.pem');
    writeFileSync(file, 'not a key');
    await expect(
      startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
        overrides: { 'RuleControlPlane:AuditPrivateKeyPemPath': file },
      }),
    ).rejects.toThrow(/RuleControlPlane:AuditPrivateKeyPemPath/);
  });
});
