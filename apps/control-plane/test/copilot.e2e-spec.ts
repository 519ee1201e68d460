import { UnitOfWork } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { createHash } from 'node:crypto';
import { EntityManager } from 'typeorm';
import { controlPlaneService, startControlPlane } from '../src';
import { ProvenanceRepository } from '../src/copilot';
import { A, B, client, operatorAuthOverrides, operatorToken } from './helpers';
import { OpenAiStub } from './openai-stub';

const C = `${B}/copilot/rulesets`;

/** What the stub model drafts by default: a valid rules-form rule set. */
const ELIGIBILITY = {
  rules: [
    { id: 'minor', name: 'Minor', condition: 'applicant.age < 18', output: { eligible: false } },
    { id: 'adult', name: 'Adult', condition: 'applicant.age >= 18', output: { eligible: true } },
  ],
};
const EXAMPLES = [
  { facts: { applicant: { age: 17 } }, expected: { eligible: false } },
  { facts: { applicant: { age: 30 } }, expected: { eligible: true } },
];
const DRAFT = { description: 'Applicants under 18 are not eligible; adults are.', examples: EXAMPLES };

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('copilot drafts without a model configured', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb');
  });
  afterAll(() => sut?.stop());

  it('answers 503 COPILOT_NOT_CONFIGURED and saves nothing (no fake output)', async () => {
    const api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    const res = await api.post(`${C}/loans/draft`, DRAFT);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ code: 'COPILOT_NOT_CONFIGURED', traceId: expect.any(String) });
    expect((await api.get(`${A}/loans/versions`)).status).toBe(404);
  });

  it('validates the Copilot:* keys at startup, naming the key', async () => {
    const start = (overrides: Record<string, unknown>) =>
      startControlPlane({
        environment: 'Testing',
        port: 0,
        env: {},
        overrides: { 'ConnectionStrings:RuleControlPlaneDb': 'pglite://memory', ...overrides },
      });
    await expect(start({ 'Copilot:BaseUrl': 'not a url', 'Copilot:Model': 'm' })).rejects.toThrow(
      /Copilot:BaseUrl/,
    );
    await expect(
      start({ 'Copilot:BaseUrl': 'ftp://models.example/v1', 'Copilot:Model': 'm' }),
    ).rejects.toThrow(/Copilot:BaseUrl must be an http\(s\) URL/);
    await expect(start({ 'Copilot:BaseUrl': 'http://127.0.0.1:9/v1' })).rejects.toThrow(
      /Copilot:Model is required/,
    );
    await expect(
      start({ 'Copilot:BaseUrl': 'http://127.0.0.1:9/v1', 'Copilot:Model': 'm', 'Copilot:TimeoutMs': 5 }),
    ).rejects.toThrow(/Copilot:TimeoutMs/);
  });
});

describe('copilot drafts with an OpenAI-compatible model (stub server), approval required', () => {
  let sut: ServiceUnderTest;
  let stub: OpenAiStub;
  let api: ReturnType<typeof client>;
  let bob: ReturnType<typeof client>;

  beforeAll(async () => {
    stub = await new OpenAiStub({ content: ELIGIBILITY }).start();
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        'Copilot:BaseUrl': stub.baseUrl,
        'Copilot:Model': 'stub-model-1',
        'Copilot:ApiKey': 'sk-test-key',
      },
    });
    api = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'alice' });
    bob = client(sut.url, { 'x-tenant-id': 'acme', 'x-actor': 'bob' });
  });
  afterAll(async () => {
    await sut?.stop();
    await stub?.stop();
  });

  it('drafts, validates, dry-runs the examples and saves a Draft version with its provenance row', async () => {
    const res = await api.post(`${C}/loans/draft`, DRAFT);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      workflowName: 'loans',
      version: 1,
      status: 'Draft',
      shape: 'rules',
      createdBy: 'alice',
      model: 'stub-model-1',
      ruleSet: ELIGIBILITY,
    });
    expect(res.body.examples.map((e: any) => [e.index, e.passed, e.actual.eligible])).toEqual([
      [0, true, false],
      [1, true, true],
    ]);
    const p = res.body.provenance;
    expect(p).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: 'acme',
      workflow: 'loans',
      version: 1,
      generatedBy: 'alice',
      editedBeforeApproval: null,
      approvedAt: null,
    });
    // the hash is the server's SHA-256 of the canonical snapshot, which is the model's document
    expect(p.aiOriginalHash).toBe(sha256(p.aiOriginalSnapshot));
    expect(JSON.parse(p.aiOriginalSnapshot)).toEqual(ELIGIBILITY);
    expect(p.aiOriginalSnapshot).toBe(
      '{"rules":[{"condition":"applicant.age < 18","id":"minor","name":"Minor","output":{"eligible":false}},' +
        '{"condition":"applicant.age >= 18","id":"adult","name":"Adult","output":{"eligible":true}}]}',
    );

    // what the model was asked: the model, the key, the shape's JSON schema as response_format
    const call = stub.requests.at(-1)!;
    expect(call.path).toBe('/v1/chat/completions');
    expect(call.headers.authorization).toBe('Bearer sk-test-key');
    expect(call.body.model).toBe('stub-model-1');
    expect(call.body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'rule_set', schema: { type: 'object', required: ['rules'] } },
    });
    expect(call.body.messages.at(-1).content).toContain('Applicants under 18 are not eligible');
    expect(call.body.messages.at(-1).content).toContain('{"applicant":{"age":17}}');

    const version = await api.get(`${A}/loans/versions/1`);
    expect(version.body).toMatchObject({ status: 'Draft', createdBy: 'alice' });
    const read = await api.get(`${C}/loans/1/provenance`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(p);
  });

  it('refuses a model answer that is not a valid rule set: 502, nothing saved', async () => {
    stub.next(
      { content: { rules: [{ id: 'x', name: 'X', condition: 'age >', output: {} }] } },
      { content: 'sorry, I cannot do JSON' },
      { raw: '{"error":{"message":"overloaded"}}', status: 503 },
      { refusal: 'I will not write rules' },
      { content: [1, 2, 3] },
      { content: { type: 'code-based', rules: [{ code: 'NOT_REGISTERED' }] } },
    );
    const bad = await api.post(`${C}/invalid/draft`, DRAFT);
    expect(bad.status).toBe(502);
    expect(bad.body).toMatchObject({ code: 'COPILOT_INVALID_DRAFT' });
    expect(bad.body.details[0].field).toBe('rules[0].condition');
    const text = await api.post(`${C}/invalid/draft`, DRAFT);
    expect([text.status, text.body.code]).toEqual([502, 'COPILOT_INVALID_MODEL_ANSWER']);
    const down = await api.post(`${C}/invalid/draft`, DRAFT);
    expect([down.status, down.body.code]).toEqual([502, 'COPILOT_MODEL_UNAVAILABLE']);
    expect(down.body.error).toContain('HTTP 503');
    const refused = await api.post(`${C}/invalid/draft`, DRAFT);
    expect([refused.status, refused.body.code]).toEqual([502, 'COPILOT_INVALID_MODEL_ANSWER']);
    expect(refused.body.error).toContain('refused');
    const array = await api.post(`${C}/invalid/draft`, DRAFT);
    expect([array.status, array.body.code]).toEqual([502, 'COPILOT_INVALID_MODEL_ANSWER']);
    const wrongShape = await api.post(`${C}/invalid/draft`, DRAFT);
    expect([wrongShape.status, wrongShape.body.code]).toEqual([502, 'COPILOT_INVALID_DRAFT']);
    expect(wrongShape.body.details[0].message).toContain("unknown rule code 'NOT_REGISTERED'");
    expect((await api.get(`${A}/invalid/versions`)).status).toBe(404);
  });

  it('refuses a draft that fails the examples: 422 COPILOT_EXAMPLES_FAILED per example, nothing saved', async () => {
    const res = await api.post(`${C}/strict/draft`, {
      ...DRAFT,
      examples: [EXAMPLES[0], { facts: { applicant: { age: 30 } }, expected: { eligible: 'maybe' } }],
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('COPILOT_EXAMPLES_FAILED');
    expect(res.body.details).toEqual([
      { field: 'examples[1]', message: 'eligible: expected "maybe", got true' },
    ]);
    expect((await api.get(`${A}/strict/versions`)).status).toBe(404);
  });

  it('checks the request: description required, shape one of three, examples as objects', async () => {
    const calls = stub.requests.length;
    const none = await api.post(`${C}/loans/draft`, { examples: EXAMPLES });
    expect([none.status, none.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(none.body.details.map((d: any) => d.field)).toContain('description');
    const shape = await api.post(`${C}/loans/draft`, { ...DRAFT, shape: 'legacy' });
    expect([shape.status, shape.body.details[0].field]).toEqual([400, 'shape']);
    const examples = await api.post(`${C}/loans/draft`, { ...DRAFT, examples: [{ facts: 1, expected: {} }] });
    expect(examples.status).toBe(400);
    const name = await api.post(`${C}/bad%20name/draft`, DRAFT);
    expect([name.status, name.body.code]).toEqual([400, 'INVALID_WORKFLOW_NAME']);
    expect(stub.requests.length).toBe(calls); // the model is not asked for a bad request
  });

  it('discard: a never-submitted copilot draft → Rejected (terminal), audited, provenance kept', async () => {
    const draft = await api.post(`${C}/discarded/draft`, DRAFT);
    const version = draft.body.version;
    const res = await api.post(`${C}/discarded/${version}/discard`, { reason: 'not what we need' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      version,
      status: 'Rejected',
      discardedBy: 'alice',
      reason: 'not what we need',
      provenance: { aiOriginalHash: draft.body.provenance.aiOriginalHash, editedBeforeApproval: null },
    });
    expect((await api.get(`${A}/discarded/versions/${version}`)).body).toMatchObject({
      status: 'Rejected',
      rejectedBy: 'alice',
      rejectionReason: 'not what we need',
    });
    expect((await api.get(`${C}/discarded/${version}/provenance`)).body).toEqual(draft.body.provenance);
    // terminal: submit, activate and a second discard are 409
    const submit = await api.post(`${B}/rulesets/discarded/${version}/submit`, { detail: 'please' });
    expect([submit.status, submit.body.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const activate = await bob.post(`${B}/rulesets/discarded/${version}/activate`, {});
    expect([activate.status, activate.body.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const again = await api.post(`${C}/discarded/${version}/discard`, {});
    expect([again.status, again.body.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const audit = await api.get(`${A}/discarded/audit`);
    expect(audit.body.entries.map((e: any) => [e.action, e.actor, e.detail])).toEqual([
      ['REJECT', 'alice', 'copilot-draft discard: not what we need'],
      ['SAVE', 'alice', expect.stringContaining('copilot draft (stub-model-1)')],
    ]);
  });

  it('discard refuses versions that are not copilot drafts, or were submitted once', async () => {
    await api.post(`${A}/manual/save`, ELIGIBILITY);
    const manual = await api.post(`${C}/manual/1/discard`, {});
    expect([manual.status, manual.body.code]).toEqual([409, 'NOT_A_COPILOT_DRAFT']);
    const noRow = await api.get(`${C}/manual/1/provenance`);
    expect([noRow.status, noRow.body.code]).toEqual([404, 'PROVENANCE_NOT_FOUND']);
    const missing = await api.get(`${C}/manual/9/provenance`);
    expect([missing.status, missing.body.code]).toEqual([404, 'VERSION_NOT_FOUND']);

    const draft = await api.post(`${C}/bounced/draft`, DRAFT);
    await api.post(`${B}/rulesets/bounced/${draft.body.version}/submit`, { detail: 'review' });
    await bob.post(`${B}/rulesets/bounced/${draft.body.version}/reject`, { reason: 'not yet' });
    expect((await api.get(`${A}/bounced/versions/1`)).body.status).toBe('Draft');
    const bounced = await api.post(`${C}/bounced/1/discard`, {});
    expect([bounced.status, bounced.body.code]).toEqual([409, 'DRAFT_WAS_SUBMITTED']);
  });

  it('approval sets ApprovedAt; activation resolves EditedBeforeApproval = false for the unedited draft, in the signed audit', async () => {
    const draft = await api.post(`${C}/unedited/draft`, DRAFT);
    const v = draft.body.version;
    await api.post(`${B}/rulesets/unedited/${v}/submit`, { detail: 'review please' });
    expect((await api.get(`${C}/unedited/${v}/provenance`)).body.approvedAt).toBeNull();
    const approved = await bob.post(`${B}/rulesets/unedited/${v}/approve`, { detail: 'ok' });
    expect(approved.status).toBe(200);
    const afterApproval = (await api.get(`${C}/unedited/${v}/provenance`)).body;
    expect(afterApproval.approvedAt).toBe(approved.body.approvedAt);
    expect(afterApproval.editedBeforeApproval).toBeNull();
    const activated = await bob.post(`${B}/rulesets/unedited/${v}/activate`, { detail: 'ship' });
    expect(activated.status).toBe(200);
    const after = (await api.get(`${C}/unedited/${v}/provenance`)).body;
    expect(after).toMatchObject({ editedBeforeApproval: false, approvedAt: approved.body.approvedAt });
    const audit = await api.get(`${A}/unedited/audit`);
    const activate = audit.body.entries.find((e: any) => e.action === 'ACTIVATE');
    expect(activate.detail).toContain('ship');
    expect(activate.detail).toContain('copilot draft: editedBeforeApproval=false generatedBy=alice');
    expect(activate.detail).toContain(`aiOriginalHash=${draft.body.provenance.aiOriginalHash}`);
    expect(activate.signature).toEqual(expect.any(String));
    expect((await api.get(`${B}/audit/verify`)).body).toMatchObject({ valid: true });
  });

  it("a person's revision is a new Draft with the same AI original; its activation records EditedBeforeApproval = true", async () => {
    const draft = await api.post(`${C}/edited/draft`, DRAFT);
    const edited = {
      rules: [
        ...ELIGIBILITY.rules,
        { id: 'vip', name: 'VIP', condition: 'applicant.vip = true', output: { fastTrack: true } },
      ],
    };
    const revised = await bob.post(`${C}/edited/${draft.body.version}/revise`, {
      ruleSet: edited,
      detail: 'add vip',
    });
    expect(revised.status).toBe(200);
    expect(revised.body).toMatchObject({ version: 2, status: 'draft', createdBy: 'bob', revisedFrom: 1 });
    expect(revised.body.provenance).toMatchObject({
      version: 2,
      aiOriginalHash: draft.body.provenance.aiOriginalHash,
      aiOriginalSnapshot: draft.body.provenance.aiOriginalSnapshot,
      generatedBy: 'alice',
      generatedAt: draft.body.provenance.generatedAt,
      editedBeforeApproval: null,
    });
    expect(revised.body.provenance.id).not.toBe(draft.body.provenance.id);
    const invalid = await bob.post(`${C}/edited/1/revise`, { ruleSet: { rules: [{ id: 'x' }] } });
    expect([invalid.status, invalid.body.code]).toEqual([400, 'INVALID_RULESET']);

    await bob.post(`${B}/rulesets/edited/2/submit`, { detail: 'review' });
    await api.post(`${B}/rulesets/edited/2/approve`, { detail: 'ok' });
    await api.post(`${B}/rulesets/edited/2/activate`, {});
    expect((await api.get(`${C}/edited/2/provenance`)).body.editedBeforeApproval).toBe(true);
    expect((await api.get(`${C}/edited/1/provenance`)).body.editedBeforeApproval).toBeNull();
    const audit = await api.get(`${A}/edited/audit`);
    const activate = audit.body.entries.find((e: any) => e.action === 'ACTIVATE');
    expect(activate.detail).toContain('copilot draft: editedBeforeApproval=true');
  });

  it('keeps tenants apart: another tenant neither reads nor writes the provenance rows (row-level security)', async () => {
    const globex = client(sut.url, { 'x-tenant-id': 'globex', 'x-actor': 'eve' });
    const read = await globex.get(`${C}/loans/1/provenance`);
    expect([read.status, read.body.code]).toEqual([404, 'RULESET_NOT_FOUND']);
    const discard = await globex.post(`${C}/loans/1/discard`, {});
    expect(discard.status).toBe(404);

    const uow = sut.service.app.get(UnitOfWork);
    const repo = sut.service.app.get(ProvenanceRepository);
    const as = <T>(tenantId: string, work: (m: EntityManager) => Promise<T>) => uow.run(work, { tenantId });
    const acmeRow = await as('acme', (m) => repo.find(m, 'loans', 1));
    expect(acmeRow).toMatchObject({ tenantId: 'acme', version: 1 });
    expect(await as('globex', (m) => repo.find(m, 'loans', 1))).toBeNull();
    // a write naming another tenant is refused by the policy's WITH CHECK (acme's manual/1 has no row yet)
    const forged = {
      ...acmeRow!,
      id: '00000000-0000-4000-8000-000000000001',
      workflow: 'manual',
      version: 1,
    };
    await expect(as('globex', (m) => repo.insert(m, forged))).rejects.toThrow(/row-level security/);
    expect(await as('acme', (m) => repo.find(m, 'manual', 1))).toBeNull();
    // an update from another tenant touches nothing
    await as('globex', (m) => repo.markApproved(m, 'loans', 1, new Date('2030-01-01T00:00:00Z')));
    expect((await as('acme', (m) => repo.find(m, 'loans', 1)))!.approvedAt).toBeNull();
    // the row is tamper-evident: its original cannot be rewritten, nor deleted, by the application
    await expect(
      as('acme', (m) =>
        m.query(`UPDATE copilot_draft_provenance SET ai_original_snapshot = '{}' WHERE workflow = 'loans'`),
      ),
    ).rejects.toThrow(/immutable/);
    await expect(
      as('acme', (m) => m.query(`DELETE FROM copilot_draft_provenance WHERE workflow = 'loans'`)),
    ).rejects.toThrow(/permission denied/);
    // and one (tenant, workflow, version) has one row
    await expect(
      as('acme', (m) => repo.insert(m, { ...acmeRow!, id: '00000000-0000-4000-8000-000000000002' })),
    ).rejects.toThrow(/duplicate key|unique/);
  });

  it('svc_ruleset_draft: the same drafting as a tool-protocol tool', async () => {
    const res = await fetch(`${sut.url}/sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme', 'x-actor': 'carol' },
      body: JSON.stringify({ method: 'svc_ruleset_draft', args: { workflowName: 'tooled', ...DRAFT } }),
    });
    const body: any = await res.json();
    expect(res.status).toBe(200);
    expect(body.result).toMatchObject({
      workflowName: 'tooled',
      version: 1,
      status: 'Draft',
      provenance: { generatedBy: 'carol' },
    });
    const bad = await fetch(`${sut.url}/sse`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-tenant-id': 'acme' },
      body: JSON.stringify({ method: 'svc_ruleset_draft', args: { workflowName: 'tooled' } }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).code).toBe('INVALID_TOOL_ARGUMENTS');
  });
});

describe('copilot drafts with authorization on and RuleControlPlane:ApprovalDenial = Rejected', () => {
  const SECRET = 'copilot-test-secret-0123456789-abcdef';
  let sut: ServiceUnderTest;
  let stub: OpenAiStub;

  beforeAll(async () => {
    stub = await new OpenAiStub({ content: ELIGIBILITY }).start();
    sut = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: {
        ...operatorAuthOverrides(SECRET),
        'RuleControlPlane:ApprovalDenial': 'Rejected',
        'Copilot:BaseUrl': stub.baseUrl,
        'Copilot:Model': 'stub-model-2',
      },
    });
  });
  afterAll(async () => {
    await sut?.stop();
    await stub?.stop();
  });

  it("GeneratedBy is the token's user, never a body field or X-Actor; viewers may not draft", async () => {
    const token = await operatorToken(SECRET, 'dana', ['Admin']);
    // naming someone else as the actor is refused (who acts is who is authenticated)
    const forged = client(sut.url, { authorization: `Bearer ${token}`, 'x-actor': 'mallory' });
    const refusedActor = await forged.post(`${C}/loans/draft`, { ...DRAFT, actor: 'mallory' });
    expect([refusedActor.status, refusedActor.body.code]).toEqual([403, 'ACTOR_MISMATCH']);
    const admin = client(sut.url, { authorization: `Bearer ${token}` });
    const res = await admin.post(`${C}/loans/draft`, { ...DRAFT, generatedBy: 'mallory' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      createdBy: 'dana',
      provenance: { generatedBy: 'dana', tenantId: 'acme' },
    });
    expect(stub.requests.at(-1)!.headers.authorization).toBeUndefined(); // no Copilot:ApiKey: no header

    const viewer = client(sut.url, {
      authorization: `Bearer ${await operatorToken(SECRET, 'vic', ['Viewer'])}`,
    });
    const refused = await viewer.post(`${C}/loans/draft`, DRAFT);
    expect([refused.status, refused.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await viewer.get(`${C}/loans/1/provenance`)).status).toBe(200);
    const anonymous = await client(sut.url).post(`${C}/loans/draft`, DRAFT);
    expect(anonymous.status).toBe(401);
  });

  it('approval denial leads to the terminal Rejected when so configured', async () => {
    const admin = client(sut.url, {
      authorization: `Bearer ${await operatorToken(SECRET, 'dana', ['Admin'])}`,
    });
    const approver = client(sut.url, {
      authorization: `Bearer ${await operatorToken(SECRET, 'erin', ['Approver'])}`,
    });
    const draft = await admin.post(`${C}/denied/draft`, DRAFT);
    await admin.post(`${B}/rulesets/denied/${draft.body.version}/submit`, { detail: 'review' });
    const rejected = await approver.post(`${B}/rulesets/denied/${draft.body.version}/reject`, {
      reason: 'no',
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('Rejected');
    const activate = await approver.post(`${B}/rulesets/denied/${draft.body.version}/activate`, {});
    expect([activate.status, activate.body.code]).toEqual([409, 'INVALID_STATE_TRANSITION']);
    const provenance = await admin.get(`${C}/denied/${draft.body.version}/provenance`);
    expect(provenance.body).toMatchObject({ editedBeforeApproval: null, approvedAt: null });
  });
});
