import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import ExcelJS from 'exceljs';
import { Zip, ZipDeflate, zipSync } from 'fflate';
import { decisionsService } from '../src';
import { client, upload } from './helpers';

/** A zip whose one worksheet entry inflates to `mib` MiB of zeros (a zip bomb), built chunk by chunk. */
function zipBomb(mib: number): Buffer {
  const parts: Uint8Array[] = [];
  const zip = new Zip((error, chunk) => {
    if (error) throw error;
    parts.push(chunk);
  });
  // level 1: zeros deflate to about 1:1000 at any level, and building 1 GiB at level 9 took 45 s at load 10
  const entry = new ZipDeflate('xl/worksheets/sheet1.xml', { level: 1 });
  zip.add(entry);
  const zeros = new Uint8Array(1024 * 1024);
  for (let i = 0; i < mib; i++) entry.push(zeros, i === mib - 1);
  zip.end();
  return Buffer.concat(parts);
}

/** An archive shaped like an XLSX whose worksheet has `rows` (empty) rows: small to upload, long to parse. */
function manyRows(rows: number): Buffer {
  const sheet = `<worksheet><sheetData>${'<row/>'.repeat(rows)}</sheetData></worksheet>`;
  return Buffer.from(zipSync({ 'xl/worksheets/sheet1.xml': new TextEncoder().encode(sheet) }, { level: 9 }));
}

function dmnWithTables(count: number): string {
  const decisions = Array.from(
    { length: count },
    (_, i) => `<decision id="d${i}" name="T${i}"><decisionTable id="t${i}" hitPolicy="FIRST">
      <input id="i${i}" label="x"><inputExpression typeRef="number"><text>x</text></inputExpression></input>
      <output id="o${i}" name="y" typeRef="number"/>
      <rule id="r${i}"><inputEntry><text>-</text></inputEntry><outputEntry><text>${i}</text></outputEntry></rule>
    </decisionTable></decision>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="n" namespace="x">${decisions.join('')}</definitions>`;
}

const TENANT = 'imports';

describe('decisions imports: limits before parsing', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb', {
      overrides: { 'DecisionTables:MaxImportTables': 5, 'DecisionTables:MaxImportLines': 1000 },
    });
    api = client(sut.url, TENANT);
  });
  afterAll(() => sut?.stop());

  it('a small XLSX zip bomb is refused with 413 ARCHIVE_TOO_LARGE, without GBs of memory', async () => {
    const bomb = zipBomb(256); // 256 MiB of zeros: 4× MaxImportUncompressedBytes (64 MiB), from a 256 KiB upload
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const r = await upload(sut.url, 'excel', bomb, 'bomb.xlsx', TENANT);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('ARCHIVE_TOO_LARGE');
    expect(r.body.error).toMatch(/DecisionTables:MaxImportUncompressedBytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    expect(Date.now() - started).toBeLessThan(5_000);
  }, 120_000);

  it('an XLSX worksheet with a million rows is refused before parsing (413 IMPORT_TOO_MANY_ROWS)', async () => {
    const file = manyRows(1_000_000);
    expect(file.length).toBeLessThan(2 * 1024 * 1024);
    const started = Date.now();
    const r = await upload(sut.url, 'excel', file, 'rows.xlsx', TENANT);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('IMPORT_TOO_MANY_ROWS');
    expect(r.body.error).toMatch(/DecisionTables:MaxImportLines/);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a CSV file past the line limit is refused with 413 IMPORT_TOO_MANY_ROWS', async () => {
    const csv = '#name,Long\nid,priority,in:x:number,out:y:number\n' + 'r,1,1,1\n'.repeat(2000);
    const r = await upload(sut.url, 'csv', csv, 'long.csv', TENANT);
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('IMPORT_TOO_MANY_ROWS');
  });

  it('more tables than DecisionTables:MaxImportTables: 413 IMPORT_TOO_MANY_TABLES for DMN and JSON, nothing created', async () => {
    const dmn = await upload(sut.url, 'dmn', dmnWithTables(6), 'many.dmn', TENANT);
    expect(dmn.status).toBe(413);
    expect(dmn.body.code).toBe('IMPORT_TOO_MANY_TABLES');
    const json = await api.post(
      '/import?format=json',
      Array.from({ length: 6 }, (_, i) => ({
        name: `json ${i}`,
        hitPolicy: 'First',
        inputColumns: [],
        outputColumns: [{ name: 'y' }],
        rows: [],
      })),
    );
    expect(json.status).toBe(413);
    expect(json.body.code).toBe('IMPORT_TOO_MANY_TABLES');
    expect((await api.get('')).body).toEqual([]);
    // within the limit, the same files import
    expect((await upload(sut.url, 'dmn', dmnWithTables(5), 'five.dmn', TENANT)).body.imported).toBe(5);
  });

  it('a DMN file declaring entities (billion laughs, XXE) is a 400 XML_DOCTYPE_NOT_ALLOWED', async () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]>
${dmnWithTables(1)
  .replace(/^<\?xml[^>]*>\n/, '')
  .replace('<text>0</text></outputEntry>', '<text>"&lol2;"</text></outputEntry>')}`;
    const r = await upload(sut.url, 'dmn', laughs, 'lol.dmn', TENANT);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('XML_DOCTYPE_NOT_ALLOWED');
    const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${dmnWithTables(1).replace(/^<\?xml[^>]*>\n/, '')}`;
    const r2 = await upload(sut.url, 'dmn', xxe, 'xxe.dmn', TENANT);
    expect(r2.status).toBe(400);
    expect(r2.body.code).toBe('XML_DOCTYPE_NOT_ALLOWED');
  });
});

describe('decisions imports and exports: nothing lost, nothing run', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    api = client(sut.url, TENANT);
  });
  afterAll(() => sut?.stop());

  it('XLSX import reads a native date cell as a date condition (not "matches anything")', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('t');
    sheet.addRow(['#name', 'Native dates']);
    sheet.addRow(['#hitPolicy', 'First']);
    sheet.addRow(['id', 'priority', 'in:since:date', 'in:limit:number', 'out:offer:string']);
    sheet.addRow(['r1', 1, new Date(Date.UTC(2024, 0, 31)), 0.5, 'winter']);
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    const r = await upload(sut.url, 'excel', file, 'dates.xlsx', TENANT);
    expect(r.body).toMatchObject({ imported: 1 });
    const id = r.body.results[0].id;
    expect((await api.get(`/${id}`)).body.rows[0].inputConditions).toEqual({
      since: 'date("2024-01-31")',
      limit: '0.5',
    });
    const hit = await api.post(`/${id}/evaluate`, { input: { since: '2024-01-31', limit: 0.5 } });
    expect(hit.body.matchedRows).toEqual(['r1']);
    const miss = await api.post(`/${id}/evaluate`, { input: { since: '2025-06-01', limit: 0.5 } });
    expect(miss.body.matchedRows).toEqual([]);
  });

  const rich = {
    name: 'Round trip',
    description: 'every kind of cell',
    hitPolicy: 'All',
    inputColumns: [
      { name: 'age', type: 'number', required: true },
      { name: 'since', type: 'date' },
      { name: 'monthly', type: 'number', expression: 'income / 12' },
    ],
    outputColumns: [
      { name: 'due', type: 'date', defaultValue: '2024-12-31' },
      { name: 'grace', type: 'duration' },
      { name: 'bonus', type: 'number' },
      { name: 'note', type: 'string' },
    ],
    rows: [
      {
        id: 'r1',
        priority: 1,
        inputConditions: { age: '< 18', since: '>= date("2020-01-01")' },
        outputs: { due: '2025-01-31', grace: 'P1DT2H', note: '=HYPERLINK("http://evil")' },
        outputExpressions: { bonus: 'monthly * 0.1' },
      },
      { id: 'r2', priority: 2, inputConditions: { age: '>= 18' }, outputs: { bonus: 1e21, note: '-x' } },
    ],
  };
  const comparable = (t: any) => ({
    name: t.name,
    description: t.description,
    hitPolicy: t.hitPolicy,
    inputColumns: t.inputColumns,
    outputColumns: t.outputColumns,
    rows: t.rows,
  });

  it('DMN, CSV and XLSX exports import back to the same table (temporal values as FEEL literals)', async () => {
    const id = (await api.post('', rich)).body.id;
    const original = comparable((await api.get(`/${id}`)).body);
    const dmn = await api.get(`/${id}/export?format=dmn`);
    expect(dmn.text).toContain('date(&quot;2025-01-31&quot;)');
    expect(dmn.text).toContain('duration(&quot;P1DT2H&quot;)');
    expect(dmn.text).toContain('<text>monthly * 0.1</text>');
    const csv = await api.get(`/${id}/export?format=csv`);
    const res = await fetch(`${sut.url}/api/v1/decision-tables/${id}/export?format=excel`, {
      headers: { 'x-tenant-id': TENANT },
    });
    const xlsx = Buffer.from(await res.arrayBuffer());
    await api.del(`/${id}`);
    for (const [format, data, file] of [
      ['dmn', dmn.text, 't.dmn'],
      ['csv', csv.text, 't.csv'],
      ['excel', xlsx, 't.xlsx'],
    ] as const) {
      const r = await upload(sut.url, format, data, file, TENANT);
      expect(r.body).toMatchObject({ imported: 1 });
      const back = (await api.get(`/${r.body.results[0].id}`)).body;
      expect(comparable(back)).toEqual(original);
      const evaluated = await api.post(`/${back.id}/evaluate`, {
        input: { age: 10, since: '2021-01-01', income: 1200 },
      });
      expect(evaluated.body.outputValues.bonus).toEqual([10]);
      await api.del(`/${back.id}`);
    }
  });

  it('CSV export escapes cells a spreadsheet would run as formulas; XLSX text cells the same', async () => {
    const id = (await api.post('', { ...rich, name: 'Formulas' })).body.id;
    const csv = (await api.get(`/${id}/export?format=csv`)).text;
    expect(csv).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(csv).toContain("'-x");
    for (const cell of csv.split(/\r\n|,/)) expect(cell.replace(/^"/, '')).not.toMatch(/^[=+@\t\r]|^-(?!\d)/);
    const res = await fetch(`${sut.url}/api/v1/decision-tables/${id}/export?format=excel`, {
      headers: { 'x-tenant-id': TENANT },
    });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await res.arrayBuffer()) as never);
    const texts: string[] = [];
    workbook.worksheets[0].eachRow((row) =>
      row.eachCell((c) => void (typeof c.value === 'string' && texts.push(c.value))),
    );
    expect(texts).toContain(`'=HYPERLINK("http://evil")`);
    for (const text of texts) expect(text).not.toMatch(/^[=+\-@\t\r]/);
  });
});
