import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import ExcelJS from 'exceljs';
import { strToU8, zipSync } from 'fflate';
import { decisionsService } from '../src';
import { client, sampleTable, upload } from './helpers';

/** A table whose one column every row accepts 0 on: rows × (rows − 1) / 2 overlapping pairs. */
function overlapping(name: string, rows: number) {
  return {
    name,
    hitPolicy: 'Collect',
    inputColumns: [{ name: 'x', type: 'number' }],
    outputColumns: [{ name: 'y', type: 'number' }],
    rows: Array.from({ length: rows }, (_, i) => ({
      id: `r${i}`,
      inputConditions: { x: `[0..${i + 1}]` },
      outputs: { y: i },
    })),
  };
}

describe('decisions: nothing is silently ignored or cut', () => {
  let sut: ServiceUnderTest;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
    api = client(sut.url, 'no-silent-loss');
  }, 120_000);
  afterAll(() => sut?.stop());

  it('execute honours ?version= (that version is evaluated; a missing one is a 404 with a code)', async () => {
    const id = (await api.post('', sampleTable('versioned execute'))).body.id;
    const v2 = sampleTable('versioned execute');
    v2.rows[0].outputs = { risk: 'child' };
    expect((await api.put(`/${id}`, v2)).status).toBe(200);
    expect((await api.post(`/${id}/execute`, { age: 10 })).body.outputs).toEqual({ risk: 'child' });
    const first = await api.post(`/${id}/execute?version=1`, { age: 10 });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ matchedRows: ['r1'], outputs: { risk: 'minor' } });
    expect((await api.post(`/${id}/execute?version=2`, { age: 10 })).body.outputs).toEqual({ risk: 'child' });
    const missing = await api.post(`/${id}/execute?version=3`, { age: 10 });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('VERSION_NOT_FOUND');
    const bad = await api.post(`/${id}/execute?version=zero`, { age: 10 });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('INVALID_VERSION');
  });

  it('analysis says when its overlap and gap lists are cut', async () => {
    const id = (await api.post('', overlapping('many overlaps', 20))).body.id;
    const stored = await api.post(`/${id}/analyze`);
    expect(stored.status).toBe(200);
    expect(stored.body.overlaps).toHaveLength(100);
    expect(stored.body).toMatchObject({ overlapCount: 190, overlapsTruncated: true });
    const unsaved = await api.post('/analyze', overlapping('unsaved', 20));
    expect(unsaved.body).toMatchObject({ overlapCount: 190, overlapsTruncated: true });
    const validated = await api.post('/validate', overlapping('validated', 20));
    expect(validated.body.analysis).toMatchObject({ overlapCount: 190, overlapsTruncated: true });
    // a short list says it is whole
    const small = await api.post('/analyze', sampleTable('whole'));
    expect(small.body).toMatchObject({ overlapCount: 1, overlapsTruncated: false });
    expect(small.body.gapsTruncated).toBe(false);
    // twelve strings, each row only below 0: more gaps than the 10 listed
    const gappy = await api.post('/analyze', {
      name: 'gappy',
      hitPolicy: 'First',
      inputColumns: [
        { name: 's', type: 'string' },
        { name: 'x', type: 'number' },
      ],
      outputColumns: [{ name: 'o' }],
      rows: Array.from({ length: 12 }, (_, i) => ({
        id: `g${i}`,
        inputConditions: { s: `"v${i}"`, x: '< 0' },
        outputs: { o: i },
      })),
    });
    expect(gappy.body.gaps).toHaveLength(10);
    expect(gappy.body.gapsTruncated).toBe(true);
  });

  describe('concurrent modification (spec 2: 409)', () => {
    it('GET gives an ETag; a PUT with a stale version or If-Match is refused with 409 and writes nothing', async () => {
      const id = (await api.post('', sampleTable('optimistic'))).body.id;
      const got = await api.get(`/${id}`);
      expect(got.headers.get('etag')).toBe('"v1"');
      // based on version 1, by body and by If-Match: written
      const byBody = await api.put(`/${id}`, {
        ...sampleTable('optimistic'),
        description: 'two',
        version: 1,
      });
      expect(byBody.status).toBe(200);
      expect(byBody.body.version).toBe(2);
      expect(byBody.headers.get('etag')).toBe('"v2"');
      const byTag = await api.call(
        'PUT',
        `/${id}`,
        { ...sampleTable('optimistic'), description: 'three' },
        {
          'if-match': '"v2"',
        },
      );
      expect(byTag.status).toBe(200);
      expect(byTag.body.version).toBe(3);
      // stale: refused, nothing written
      const staleBody = await api.put(`/${id}`, {
        ...sampleTable('optimistic'),
        description: 'lost',
        version: 2,
      });
      expect(staleBody.status).toBe(409);
      expect(staleBody.body.code).toBe('CONCURRENT_MODIFICATION');
      expect(staleBody.body.error).toMatch(/version 3/);
      const staleTag = await api.call(
        'PUT',
        `/${id}`,
        { ...sampleTable('optimistic'), description: 'lost' },
        {
          'if-match': got.headers.get('etag')!,
        },
      );
      expect(staleTag.status).toBe(409);
      expect(staleTag.body.code).toBe('CONCURRENT_MODIFICATION');
      // a weak or foreign tag matches nothing; `*` matches any version
      const weak = await api.call('PUT', `/${id}`, sampleTable('optimistic'), { 'if-match': 'W/"v3"' });
      expect(weak.status).toBe(409);
      const star = await api.call(
        'PUT',
        `/${id}`,
        { ...sampleTable('optimistic'), description: 'four' },
        {
          'if-match': '*',
        },
      );
      expect(star.status).toBe(200);
      expect(star.body.version).toBe(4);
      const latest = await api.get(`/${id}`);
      expect(latest.body).toMatchObject({ version: 4, description: 'four' });
      expect(latest.headers.get('etag')).toBe('"v4"');
      expect((await api.get(`/${id}/versions`)).body.map((v: any) => v.version)).toEqual([4, 3, 2, 1]);
      // the GET body sent back as is (it carries its version) is the natural optimistic update
      const stale = await api.put(`/${id}`, { ...got.body, description: 'from an old read' });
      expect(stale.status).toBe(409);
      // a missing table is still a 404, whatever the precondition
      const gone = await api.put('/00000000-0000-4000-8000-000000000000', {
        ...sampleTable('x'),
        version: 1,
      });
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe('TABLE_NOT_FOUND');
      const badVersion = await api.put(`/${id}`, { ...sampleTable('optimistic'), version: 0 });
      expect(badVersion.status).toBe(400);
    });

    it('of concurrent PUTs based on the same version exactly one is written, the others are 409', async () => {
      const id = (await api.post('', sampleTable('raced'))).body.id;
      const attempts = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          api.put(`/${id}`, { ...sampleTable('raced'), description: `writer ${i}`, version: 1 }),
        ),
      );
      const statuses = attempts.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 409, 409, 409]);
      for (const refused of attempts.filter((a) => a.status === 409))
        expect(refused.body.code).toBe('CONCURRENT_MODIFICATION');
      const winner = attempts.find((a) => a.status === 200)!;
      expect(winner.body.version).toBe(2);
      const latest = await api.get(`/${id}`);
      expect(latest.body.version).toBe(2);
      expect(latest.body.description).toBe(`writer ${attempts.indexOf(winner)}`);
      expect((await api.get(`/${id}/versions`)).body).toHaveLength(2);
      expect((await api.get(`/${id}/audit`)).body.map((a: any) => a.action)).toEqual(['Update', 'Create']);
    });

    it('concurrent PUTs without a precondition are all written, one version each (no 500, no lost version)', async () => {
      const id = (await api.post('', sampleTable('serialised'))).body.id;
      const attempts = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          api.put(`/${id}`, { ...sampleTable('serialised'), description: `w${i}` }),
        ),
      );
      expect(attempts.map((a) => a.status)).toEqual([200, 200, 200, 200]);
      expect(attempts.map((a) => a.body.version).sort()).toEqual([2, 3, 4, 5]);
      expect((await api.get(`/${id}/versions`)).body.map((v: any) => v.version)).toEqual([5, 4, 3, 2, 1]);
    });
  });

  describe('imports and exports say what they did', () => {
    it('an OpenDocument (.ods) or legacy .xls upload is a 400 UNSUPPORTED_FILE_FORMAT, not a 200 with nothing', async () => {
      const ods = zipSync({
        mimetype: strToU8('application/vnd.oasis.opendocument.spreadsheet'),
        'content.xml': strToU8(
          '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>',
        ),
        'META-INF/manifest.xml': strToU8('<manifest/>'),
      });
      const r = await upload(sut.url, 'excel', ods, 'rules.ods', 'no-silent-loss');
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('UNSUPPORTED_FILE_FORMAT');
      expect(r.body.error).toMatch(/OpenDocument/);
      const xls = Buffer.concat([Buffer.from('d0cf11e0a1b11ae1', 'hex'), Buffer.alloc(512)]);
      const legacy = await upload(sut.url, 'excel', xls, 'rules.xls', 'no-silent-loss');
      expect(legacy.status).toBe(400);
      expect(legacy.body.code).toBe('UNSUPPORTED_FILE_FORMAT');
      const otherZip = zipSync({ 'readme.txt': strToU8('hello') });
      const notWorkbook = await upload(sut.url, 'excel', otherZip, 'x.xlsx', 'no-silent-loss');
      expect(notWorkbook.status).toBe(400);
      expect(notWorkbook.body.code).toBe('UNSUPPORTED_FILE_FORMAT');
    });

    it('a file that holds no table is a 400 IMPORT_EMPTY', async () => {
      const workbook = new ExcelJS.Workbook();
      workbook.addWorksheet('Empty');
      const empty = Buffer.from(await workbook.xlsx.writeBuffer());
      const r = await upload(sut.url, 'excel', empty, 'empty.xlsx', 'no-silent-loss');
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('IMPORT_EMPTY');
      const literalOnly = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="https://www.omg.org/spec/DMN/20191111/MODEL/" id="d" name="d" namespace="x">
  <decision id="fee" name="Fee"><literalExpression><text>42</text></literalExpression></decision>
</definitions>`;
      const dmn = await upload(sut.url, 'dmn', literalOnly, 'fee.dmn', 'no-silent-loss');
      expect([dmn.status, dmn.body]).toMatchObject([400, { code: 'IMPORT_EMPTY' }]);
      // beside a decision table, a decision of another kind is listed as ignored, not dropped silently
      const mixed = literalOnly.replace(
        '</definitions>',
        `<decision id="rate" name="Mixed rate"><decisionTable id="t" hitPolicy="FIRST">
      <input id="i1" label="amount"><inputExpression typeRef="number"><text>amount</text></inputExpression></input>
      <output id="o1" name="rate" typeRef="number"/>
      <rule id="rule_1"><inputEntry><text>-</text></inputEntry><outputEntry><text>1</text></outputEntry></rule>
    </decisionTable></decision>
</definitions>`,
      );
      const both = await upload(sut.url, 'dmn', mixed, 'mixed.dmn', 'no-silent-loss');
      expect(both.status).toBe(200);
      expect(both.body).toMatchObject({ imported: 1, skipped: 0, failed: 0 });
      expect(both.body.results).toEqual([
        { name: 'Mixed rate', id: expect.any(String), status: 'success' },
        {
          name: 'Fee',
          id: null,
          status: 'ignored',
          error: expect.stringMatching(/literal.*not a decision table/),
        },
      ]);
    });

    it('a partial import is a 207 counting the failed tables; each table is written whole or not at all', async () => {
      const bad = {
        ...sampleTable('half bad'),
        rows: [{ id: 'x', inputConditions: { age: '>> 5' }, outputs: { risk: 'x' } }],
      };
      const r = await api.post('/import?format=json', [sampleTable('imported whole'), bad]);
      expect(r.status).toBe(207);
      expect(r.body).toMatchObject({ imported: 1, skipped: 0, failed: 1 });
      expect(r.body.results.map((x: any) => x.status)).toEqual(['success', 'failed']);
      expect(r.body.results[1].error).toMatch(/>> 5|unary/i);
      const names = (await api.get('')).body.map((t: any) => t.name);
      expect(names).toContain('imported whole');
      expect(names).not.toContain('half bad');
      const whole = (await api.get(`/${r.body.results[0].id}`)).body;
      expect(whole.rows).toHaveLength(3);
      // all fine: 200 with failed 0
      const ok = await api.post('/import?format=json', [sampleTable('all fine')]);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ imported: 1, skipped: 0, failed: 0 });
    });

    it('every export format is an attachment with a safe file name', async () => {
      const id = (await api.post('', sampleTable('Risk "quoted"/../name é'))).body.id;
      const expected = {
        json: 'Risk_quoted_.._name_.json',
        excel: 'Risk_quoted_.._name_.xlsx',
        dmn: 'Risk_quoted_.._name_.dmn',
        xml: 'Risk_quoted_.._name_.xml',
        csv: 'Risk_quoted_.._name_.csv',
      };
      for (const [format, file] of Object.entries(expected)) {
        const res = await fetch(`${sut.url}/api/v1/decision-tables/${id}/export?format=${format}`, {
          headers: { 'x-tenant-id': 'no-silent-loss' },
        });
        expect(res.status).toBe(200);
        expect([format, res.headers.get('content-disposition')]).toStrictEqual([
          format,
          `attachment; filename="${file}"`,
        ]);
      }
    });
  });
});
