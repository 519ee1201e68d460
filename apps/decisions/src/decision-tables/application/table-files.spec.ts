import { sampleTable } from '../../../test/helpers';
import { DEFAULT_IMPORT_LIMITS } from '../formats/import-limits';
import {
  attachmentName,
  isExportFormat,
  isImportFileFormat,
  readTableFile,
  writeTableFile,
} from './table-files';
import { toStoredDefinition } from './table-model';

const definition = toStoredDefinition({ ...sampleTable(), name: 'Loan risk / 2024' });

describe('table files', () => {
  it('knows the import file formats and the export formats', () => {
    expect(['excel', 'dmn', 'xml', 'csv'].every(isImportFileFormat)).toBe(true);
    expect(isImportFileFormat('json')).toBe(false);
    expect(['json', 'excel', 'dmn', 'xml', 'csv'].every(isExportFormat)).toBe(true);
    expect(isExportFormat('pdf')).toBe(false);
  });

  it('writes each format with its media type, as a download named after the table', async () => {
    expect(await writeTableFile('json', definition, 'id')).toEqual({
      body: definition,
      attachmentName: 'Loan_risk_2024.json',
    });
    expect(await writeTableFile('csv', definition, 'id')).toMatchObject({
      contentType: 'text/csv; charset=utf-8',
      attachmentName: 'Loan_risk_2024.csv',
    });
    expect(attachmentName('../"evil"\r\n', 'dmn')).toBe('evil_.dmn');
    expect(attachmentName('ééé', 'xml')).toBe('table.xml');
    const dmn = await writeTableFile('xml', definition, 'table-1');
    expect(dmn.contentType).toBe('application/xml; charset=utf-8');
    expect(dmn.body).toContain('namespace="https://arbiter.dev/decision-tables/table-1"');
    const xlsx = await writeTableFile('excel', definition, 'id');
    expect(xlsx.attachmentName).toBe('Loan_risk_2024.xlsx');
    expect(Buffer.isBuffer(xlsx.body)).toBe(true);
  });

  it('reads back every file format it writes', async () => {
    for (const kind of ['excel', 'dmn', 'csv'] as const) {
      const file = await writeTableFile(kind, definition, 'id');
      const [read] = (await readTableFile(
        kind,
        Buffer.from(file.body as string | Buffer),
        DEFAULT_IMPORT_LIMITS,
      )) as {
        name: string;
      }[];
      expect(read.name).toBe('Loan risk / 2024');
    }
  });

  it('refuses an unreadable file with 400 INVALID_IMPORT naming the format', async () => {
    await expect(readTableFile('dmn', Buffer.from('not xml'), DEFAULT_IMPORT_LIMITS)).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_IMPORT',
      message: expect.stringMatching(/^The dmn file cannot be read: /),
    });
  });
});
