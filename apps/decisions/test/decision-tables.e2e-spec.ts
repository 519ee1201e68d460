import { EventBus } from '@arbiter/platform';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { decisionsService } from '../src';
import { client, sampleTable } from './helpers';

describe('decision tables API', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  const events: any[] = [];
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    api = client(sut.url);
    await sut.service.app
      .get(EventBus)
      .subscribe('arbiter.decision-table.changed', (e) => void events.push(e.data));
  });
  afterAll(() => sut?.stop());

  it('creates, reads, evaluates, updates, diffs, audits and deletes a table', async () => {
    const created = await api.post('', sampleTable());
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Loan risk',
      version: 1,
      createdAt: expect.any(String),
    });
    const id = created.body.id;

    expect((await api.post('', sampleTable())).body.code).toBe('DUPLICATE_TABLE_NAME');

    const got = await api.get(`/${id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id,
      name: 'Loan risk',
      hitPolicy: 'First',
      version: 1,
      tenantId: 'tenant-a',
    });
    expect(got.body.rows.map((r: any) => r.id)).toEqual(['r1', 'r2', 'r3']);

    const list = await api.get('?page=1&pageSize=10');
    expect(list.body).toEqual([
      expect.objectContaining({ id, inputColumnCount: 2, outputColumnCount: 1, rowCount: 3, version: 1 }),
    ]);
    expect((await api.get('?pageSize=201')).status).toBe(400);

    const ev = await api.post(`/${id}/evaluate`, { input: { age: 30, country: 'NL' } });
    expect(ev.status).toBe(200);
    expect(ev.body).toEqual({
      matchedRows: ['r2'],
      outputRows: [{ rowId: 'r2', outputs: { risk: 'low' } }],
      outputValues: { risk: 'low' },
      evaluationTimeMs: expect.any(Number),
    });
    expect((await api.post(`/${id}/execute`, { age: 10 })).body).toEqual({
      matchedRows: ['r1'],
      outputs: { risk: 'minor' },
    });
    const missing = await api.post(`/${id}/evaluate`, { input: { country: 'NL' } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'MISSING_REQUIRED_INPUT', traceId: expect.any(String) });
    expect((await api.post(`/${id}/evaluate`, { input: { age: 'old' } })).body.code).toBe(
      'INPUT_TYPE_MISMATCH',
    );

    const changed = sampleTable();
    changed.rows[1].outputs.risk = 'very low';
    changed.rows.splice(2, 1);
    changed.rows.push({
      id: 'r4',
      priority: 4,
      inputConditions: { age: '> 65' } as any,
      outputs: { risk: 'senior' },
    });
    changed.hitPolicy = 'Unique';
    const updated = await api.put(`/${id}`, { ...changed, comment: 'split seniors' });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ id, version: 2, modifiedAt: expect.any(String) });
    expect(
      (await api.post(`/${id}/evaluate`, { input: { age: 30, country: 'NL' } })).body.outputValues,
    ).toEqual({
      risk: 'very low',
    });
    expect(
      (await api.post(`/${id}/evaluate?version=1`, { input: { age: 30, country: 'NL' } })).body.outputValues,
    ).toEqual({
      risk: 'low',
    });
    expect((await api.post(`/${id}/evaluate?version=0`, { input: { age: 1 } })).body.code).toBe(
      'INVALID_VERSION',
    );

    const versions = await api.get(`/${id}/versions`);
    expect(versions.body).toEqual([
      { version: 2, createdAt: expect.any(String), createdBy: expect.any(String), comment: 'split seniors' },
      { version: 1, createdAt: expect.any(String), createdBy: expect.any(String), comment: '' },
    ]);
    expect((await api.get(`/${id}/versions/1`)).body.hitPolicy).toBe('First');
    expect((await api.get(`/${id}/versions/abc`)).status).toBe(400);
    expect((await api.get(`/${id}/versions/9`)).status).toBe(404);

    const diff = await api.get(`/${id}/versions/1/diff/2`);
    expect(diff.body).toEqual({
      fromVersion: 1,
      toVersion: 2,
      changes: { hitPolicy: { from: 'First', to: 'Unique' } },
      addedRows: [{ rowId: 'r4', inputConditions: { age: '> 65' }, outputs: { risk: 'senior' } }],
      removedRows: ['r3'],
      modifiedRows: [{ rowId: 'r2', changes: { outputs: { risk: { from: 'low', to: 'very low' } } } }],
    });
    expect((await api.get(`/${id}/versions/1/diff/x`)).status).toBe(400);
    expect((await api.get(`/${id}/versions/1/diff/7`)).status).toBe(404);

    const audit = await api.get(`/${id}/audit`);
    expect(audit.body.map((a: any) => a.action)).toEqual(['Update', 'Create']);
    expect(audit.body[0]).toMatchObject({
      version: 2,
      comment: 'split seniors',
      changesSummary: expect.stringContaining('1 row(s) added'),
    });

    expect((await api.del(`/${id}`)).status).toBe(204);
    expect((await api.get(`/${id}`)).status).toBe(404);
    expect((await api.post(`/${id}/evaluate`, { input: { age: 1 } })).status).toBe(404);
    expect((await api.del(`/${id}`)).body.code).toBe('TABLE_NOT_FOUND');
    expect(events.map((e) => e.change)).toEqual(['created', 'updated', 'deleted']);
    expect(events[1]).toMatchObject({ tableId: id, tenantId: 'tenant-a', version: 2 });
  });

  it('rejects bad tables with row and column, and validates without saving', async () => {
    const bad = sampleTable('bad');
    bad.rows[1].inputConditions.age = '[18..';
    const res = await api.post('', bad);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_TABLE');
    expect(res.body.details).toEqual([
      { field: 'rows.r2.age', message: expect.stringContaining('Invalid FEEL') },
    ]);
    const v = await api.post('/validate', bad);
    expect(v.status).toBe(200);
    expect(v.body).toEqual({
      valid: false,
      errors: [{ rowId: 'r2', column: 'age', message: expect.any(String) }],
    });
    const ok = await api.post('/validate', sampleTable('x'));
    expect(ok.body.valid).toBe(true);
    expect(ok.body.analysis.overlaps).toEqual(
      expect.arrayContaining([{ rowIds: ['r2', 'r3'], columns: ['age', 'country'] }]),
    );
    expect((await api.post('', { name: 'x' })).body.code).toBe('VALIDATION_FAILED');
    expect((await api.post('/validate', { name: 'x', hitPolicy: 'Nope' })).body.valid).toBe(false);
  });

  it('analyzes a stored table; metrics are not for tenants', async () => {
    const { body } = await api.post('', sampleTable('analyzed'));
    const a = await api.post(`/${body.id}/analyze`);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ id: body.id, version: 1, gaps: [], redundantRows: [], complete: true });
    expect(a.body.overlaps).toEqual([{ rowIds: ['r2', 'r3'], columns: ['age', 'country'] }]);
    const gaps = await api.post('/analyze', { ...sampleTable('g'), rows: sampleTable().rows.slice(0, 2) });
    expect(gaps.body.gaps[0]).toEqual({
      example: { age: 18, country: 'other' },
      description: expect.any(String),
    });
    // every tenant's counts: not for a caller without an operator's role (auth.e2e-spec: a service key)
    const m = await api.get('/metrics');
    expect(m.status).toBe(403);
    expect(m.body.code).toBe('FORBIDDEN');
  });

  it('isolates tenants (404 across tenants) and guards the global audit', async () => {
    const { body } = await api.post('', sampleTable('tenant table'));
    const other = client(sut.url, 'tenant-b');
    expect((await other.get(`/${body.id}`)).status).toBe(404);
    expect((await other.post(`/${body.id}/evaluate`, { input: { age: 3 } })).status).toBe(404);
    expect((await other.put(`/${body.id}`, sampleTable('hijack'))).status).toBe(404);
    expect((await other.del(`/${body.id}`)).status).toBe(404);
    expect(await (await other.get('')).body).toEqual([]);
    expect((await other.post('', sampleTable('tenant table'))).status).toBe(201);
    const g = await api.get('/audit');
    expect(g.status).toBe(403);
    expect(g.body.code).toBe('FORBIDDEN');
  });

  it('reads a table by its name (latest or a version), as flow nodes reference it; 404 otherwise', async () => {
    const { body } = await api.post('', sampleTable('named table'));
    await api.put(`/${body.id}`, { ...sampleTable('named table'), description: 'second' });
    const latest = await api.get(`/by-name/${encodeURIComponent('named table')}`);
    expect(latest.status).toBe(200);
    expect(latest.body).toMatchObject({ id: body.id, name: 'named table', version: 2 });
    const first = await api.get(`/by-name/${encodeURIComponent('named table')}?version=1`);
    expect(first.body).toMatchObject({ id: body.id, version: 1 });
    expect((await api.get('/by-name/nope')).body.code).toBe('TABLE_NOT_FOUND');
    expect(
      (await client(sut.url, 'tenant-b').get(`/by-name/${encodeURIComponent('named table')}`)).status,
    ).toBe(404);
  });

  it('answers the FEEL helpers', async () => {
    const { body } = await api.post('', sampleTable('feel'));
    const ok = await api.post(`/${body.id}/feel/validate-expression`, {
      expression: 'age > 18',
      rowContext: {},
    });
    expect(ok.body).toEqual({ valid: true, message: 'OK' });
    const bad = await api.post(`/${body.id}/feel/validate-expression`, {
      expression: 'agee > 18',
      rowContext: {},
    });
    expect(bad.status).toBe(200);
    expect(bad.body.valid).toBe(false);
    const ev = await api.post(`/${body.id}/feel`, { expression: 'age * 2', input: { age: 21 } });
    expect(ev.body).toMatchObject({ result: 42 });
    expect((await api.post(`/${body.id}/feel`, { expression: '1 +' })).status).toBe(422);
    const s = await api.post('/feel-autocomplete', { expression: 'string l', variables: ['age'] });
    expect(s.body.suggestions[0]).toMatchObject({ label: 'string length', kind: 'function' });
  });

  it('puts computed columns and the facts their expressions read in the FEEL scope', async () => {
    const { body } = await api.post('', {
      name: 'computed',
      hitPolicy: 'First',
      inputColumns: [
        { name: 'monthly', type: 'number', expression: 'income / 12' },
        { name: 'age', type: 'number' },
      ],
      outputColumns: [{ name: 'band', type: 'string' }],
      rows: [{ id: 'r1', inputConditions: { monthly: '> 1000' }, outputs: { band: 'high' } }],
    });
    for (const expression of ['income > 100', 'monthly > 100 and age < 30'])
      expect(
        (await api.post(`/${body.id}/feel/validate-expression`, { expression, rowContext: {} })).body,
      ).toEqual({ valid: true, message: 'OK' });
    const unknown = await api.post(`/${body.id}/feel/validate-expression`, {
      expression: 'salary > 1',
      rowContext: {},
    });
    expect(unknown.body.valid).toBe(false);
    const ev = await api.post(`/${body.id}/feel`, { expression: 'monthly * 2', input: { income: 1200 } });
    expect(ev.body).toMatchObject({ result: 200 });
    const evaluated = await api.post(`/${body.id}/evaluate`, { input: { income: 24000 } });
    expect(evaluated.body.outputValues).toEqual({ band: 'high' });
  });

  it('compares a date input with a date fact sent as a JSON string, as the DMN input data would type it', async () => {
    const { body } = await api.post('', {
      name: 'Compare dates',
      hitPolicy: 'Unique',
      inputColumns: [{ name: 'Another Date', type: 'date' }],
      outputColumns: [{ name: 'Compare Date', type: 'string' }],
      rows: [
        {
          id: 'same',
          inputConditions: { 'Another Date': 'Complex.aDate' },
          outputs: { 'Compare Date': 'Same' },
        },
        {
          id: 'future',
          inputConditions: { 'Another Date': '> Complex.aDate' },
          outputs: { 'Compare Date': 'Future' },
        },
        {
          id: 'past',
          inputConditions: { 'Another Date': '< Complex.aDate' },
          outputs: { 'Compare Date': 'Past' },
        },
      ],
    });
    const compare = async (day: string, fact: unknown) =>
      (await api.post(`/${body.id}/evaluate`, { input: { 'Another Date': day, Complex: { aDate: fact } } }))
        .body;
    expect((await compare('2024-05-01', '2024-05-01')).matchedRows).toEqual(['same']);
    expect((await compare('2024-05-02', '2024-05-01')).matchedRows).toEqual(['future']);
    expect((await compare('2024-04-30', '2024-05-01')).matchedRows).toEqual(['past']);
    // not a date: compared as sent (FEEL null), so nothing matches, and the service says no more
    expect(await compare('2024-05-01', 'tomorrow')).toMatchObject({ matchedRows: [], outputValues: null });
  });
});
