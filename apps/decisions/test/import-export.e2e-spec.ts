import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { decisionsService } from '../src';
import { client, sampleTable } from './helpers';

const rich = (name: string) => ({
  ...sampleTable(name),
  hitPolicy: 'Priority',
  inputColumns: [
    { name: 'age', type: 'number', required: true },
    { name: 'country', type: 'string' },
    { name: 'vip', type: 'boolean' },
  ],
  outputColumns: [
    { name: 'risk', type: 'string', defaultValue: 'unknown', outputValues: ['high', 'low', 'minor'] },
    { name: 'limit', type: 'number' },
  ],
  rows: [
    { id: 'r1', priority: 1, inputConditions: { age: '< 18' }, outputs: { risk: 'minor', limit: 0 } },
    {
      id: 'r2',
      priority: 2,
      inputConditions: { age: '[18..65]', country: '"NL","BE"' },
      outputs: { risk: 'low', limit: 1000.5 },
    },
    {
      id: 'r3',
      priority: 3,
      inputConditions: { age: '>= 18', vip: 'true' },
      outputs: { risk: 'high', limit: 5000 },
    },
  ],
});

async function upload(base: string, format: string, data: Buffer | string, filename: string) {
  const form = new FormData();
  form.append('file', new Blob([data]), filename);
  const res = await fetch(`${base}/api/v1/decision-tables/import?format=${format}`, {
    method: 'POST',
    headers: { 'x-tenant-id': 'io' },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const comparable = (t: any) => ({
  name: t.name,
  hitPolicy: t.hitPolicy,
  inputColumns: t.inputColumns,
  outputColumns: t.outputColumns,
  rows: t.rows,
});

describe('decision tables import/export', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  let id: string;
  let original: any;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    api = client(sut.url, 'io');
    id = (await api.post('', rich('Rich table'))).body.id;
    original = (await api.get(`/${id}`)).body;
  });
  afterAll(() => sut?.stop());

  const renamed = (t: any, name: string) => ({ ...comparable(t), name });

  it('round-trips JSON', async () => {
    const exported = await api.get(`/${id}/export?format=json`);
    expect(exported.headers.get('content-type')).toMatch(/application\/json/);
    const imported = await api.post('/import?format=json', [{ ...exported.body, name: 'from json' }]);
    expect(imported.body).toEqual({
      imported: 1,
      skipped: 0,
      failed: 0,
      results: [{ name: 'from json', id: expect.any(String), status: 'success' }],
    });
    const back = await api.get(`/${imported.body.results[0].id}`);
    expect(comparable(back.body)).toEqual(renamed(original, 'from json'));
    const dup = await api.post('/import?format=json', [
      { ...exported.body, name: 'from json' },
      { name: 'broken' },
    ]);
    // nothing created and a table failed: 400 naming it (the skipped one is no failure)
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe('IMPORT_FAILED');
    expect(dup.body.error).toMatch(/1 failed, 1 skipped/);
    expect(dup.body.details).toEqual([{ field: 'tables[1]', message: expect.stringMatching(/^'broken': /) }]);
  });

  it('round-trips CSV, XLSX and DMN', async () => {
    const csv = await api.get(`/${id}/export?format=csv`);
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    const csvIn = await upload(
      sut.url,
      'csv',
      csv.text.replace('#name,Rich table', '#name,from csv'),
      't.csv',
    );
    expect(csvIn.body.imported).toBe(1);
    expect(comparable((await api.get(`/${csvIn.body.results[0].id}`)).body)).toEqual(
      renamed(original, 'from csv'),
    );

    const res = await fetch(`${sut.url}/api/v1/decision-tables/${id}/export?format=excel`, {
      headers: { 'x-tenant-id': 'io' },
    });
    expect(res.headers.get('content-type')).toBe(
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );
    const xlsx = Buffer.from(await res.arrayBuffer());
    expect(xlsx.subarray(0, 2).toString()).toBe('PK');
    await api.del(`/${csvIn.body.results[0].id}`);
    const other = client(sut.url, 'io2');
    void other;
    const xIn = await upload(sut.url, 'excel', xlsx, 't.xlsx');
    expect(xIn.body).toMatchObject({ imported: 0, skipped: 1 }); // same name as the original
    await api.del(`/${id}`);
    const xIn2 = await upload(sut.url, 'excel', xlsx, 't.xlsx');
    expect(xIn2.body.imported).toBe(1);
    id = xIn2.body.results[0].id;
    expect(comparable((await api.get(`/${id}`)).body)).toEqual(comparable(original));

    const dmn = await api.get(`/${id}/export?format=dmn`);
    expect(dmn.headers.get('content-type')).toMatch(/application\/xml/);
    expect(dmn.text).toContain('xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/"');
    expect(dmn.text).toContain('hitPolicy="PRIORITY"');
    const xml = await api.get(`/${id}/export?format=xml`);
    expect(xml.text).toBe(dmn.text);
    await api.del(`/${id}`);
    const dIn = await upload(sut.url, 'dmn', dmn.text, 't.dmn');
    expect(dIn.body.imported).toBe(1);
    // DMN has no notion of a required input: everything else survives
    const noRequired = (t: any) => ({
      ...comparable(t),
      inputColumns: t.inputColumns.map(({ required: _r, ...c }: any) => c),
    });
    expect(noRequired((await api.get(`/${dIn.body.results[0].id}`)).body)).toEqual(noRequired(original));
  });

  it('refuses bad formats and bad files', async () => {
    const { body } = await api.post('', sampleTable('fmt'));
    expect((await api.get(`/${body.id}/export?format=pdf`)).body.code).toBe('INVALID_FORMAT');
    expect((await api.post('/import?format=pdf', [])).body.code).toBe('INVALID_FORMAT');
    expect((await api.post('/import?format=json', { not: 'an array' })).body.code).toBe('INVALID_IMPORT');
    expect((await api.post('/import?format=excel', [])).body.code).toBe('INVALID_IMPORT');
    expect((await upload(sut.url, 'excel', 'not a zip', 'x.xlsx')).body.code).toBe('INVALID_IMPORT');
    expect((await upload(sut.url, 'dmn', '<nope', 'x.dmn')).body.code).toBe('INVALID_IMPORT');
    const big = await upload(sut.url, 'csv', Buffer.alloc(6 * 1024 * 1024, 'a'), 'big.csv');
    expect(big.status).toBe(413);
  });

  const tck = process.env.TCK_DIR ?? join(__dirname, '../../../../shared/dmn-tck/TestCases');
  (existsSync(tck) ? it : it.skip)(
    'imports and evaluates TCK decision-table models with literal outputs',
    async () => {
      const files: string[] = [];
      for (const level of ['compliance-level-2', 'compliance-level-3']) {
        const dir = join(tck, level);
        if (!existsSync(dir)) continue;
        for (const d of readdirSync(dir).filter((d) => /decision-table|hitpolicy|hit-policy/i.test(d)))
          for (const f of readdirSync(join(dir, d)).filter((f) => f.endsWith('.dmn')))
            files.push(join(dir, d, f));
      }
      let imported = 0;
      for (const f of files) {
        const r = await upload(sut.url, 'dmn', readFileSync(f), 'm.dmn');
        if (r.status === 200) imported += r.body.imported;
      }
      expect(files.length).toBeGreaterThan(0);
      expect(imported).toBeGreaterThan(0);
    },
  );
});

describe('decisions import upload limit', () => {
  let sut: ServiceUnderTest;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: { 'DecisionTables:MaxUploadBytes': 4096 },
    });
  });
  afterAll(() => sut?.stop());

  it('honours DecisionTables:MaxUploadBytes for multipart files', async () => {
    const api = client(sut.url);
    const { body } = await api.post('', sampleTable('small'));
    const csv = (await api.get(`/${body.id}/export?format=csv`)).text;
    await api.del(`/${body.id}`);
    const small = await upload(sut.url, 'csv', csv, 'small.csv');
    expect(small.status).toBe(200);
    expect(small.body.imported).toBe(1);
    const big = await upload(sut.url, 'csv', `${csv}\n${' '.repeat(5000)}`, 'big.csv');
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
