import ExcelJS from 'exceljs';
import { Unzip, UnzipInflate, UnzipPassThrough, unzipSync, type UnzipFileInfo } from 'fflate';
import { Readable } from 'node:stream';
import { StoredDefinition } from '../application/table-model';
import { exportCell, fromGrid, InCell, toGrid } from './grid';
import {
  DEFAULT_IMPORT_LIMITS,
  ImportLimitExceeded,
  ImportLimits,
  UnsupportedFileFormat,
} from './import-limits';

/** One worksheet named "Decision table" in the grid layout (see grid.ts); text cells formula-escaped. */
export async function toXlsx(def: StoredDefinition): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Arbiter';
  const sheet = workbook.addWorksheet('Decision table');
  for (const row of toGrid(def)) sheet.addRow(row.map(exportCell));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** the first bytes of an OLE2 compound file: a legacy `.xls` workbook */
const OLE2_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const WORKSHEET = /^xl\/worksheets\/[^/]+\.xml$/;
/** a `<row …>` start tag of a worksheet (not `<rowBreaks>`) */
const ROW_TAG = /<row[\s>/]/g;

/**
 * Checks an XLSX archive against the limits without parsing it, and throws ImportLimitExceeded (or
 * Error when it is not a zip archive):
 * 1. the central directory: number of entries, declared decompressed sizes, number of worksheets;
 * 2. every entry inflated as a stream and counted, nothing kept (declared sizes may lie: a zip bomb is
 *    stopped once the inflated bytes pass the limit), worksheet rows counted on the way.
 */
export function inspectXlsx(data: Uint8Array, limits: ImportLimits): void {
  if (OLE2_MAGIC.every((byte, i) => data[i] === byte))
    throw new UnsupportedFileFormat(
      'This is a legacy Excel (.xls) file: only XLSX workbooks are read (save it as .xlsx)',
    );
  const declared: UnzipFileInfo[] = [];
  unzipSync(data, {
    filter: (file) => {
      declared.push(file);
      return false; // read the directory only
    },
  });
  if (declared.length > limits.maxArchiveEntries) throw ImportLimitExceeded.entries(limits.maxArchiveEntries);
  const declaredBytes = declared.reduce((sum, f) => sum + f.originalSize, 0);
  if (declaredBytes > limits.maxUncompressedBytes)
    throw ImportLimitExceeded.bytes(limits.maxUncompressedBytes);
  if (declared.filter((f) => WORKSHEET.test(f.name)).length > limits.maxTables)
    throw ImportLimitExceeded.tables(limits.maxTables);

  let failure: Error | null = null;
  let entries = 0;
  let inflated = 0;
  const unzip = new Unzip((file) => {
    if (failure) return;
    if (++entries > limits.maxArchiveEntries) {
      failure = ImportLimitExceeded.entries(limits.maxArchiveEntries);
      return;
    }
    const sheet = WORKSHEET.test(file.name);
    let rows = 0;
    let tail = '';
    file.ondata = (error, chunk) => {
      if (failure) return;
      if (error) {
        failure = error;
        return;
      }
      inflated += chunk.length;
      if (inflated > limits.maxUncompressedBytes) {
        failure = ImportLimitExceeded.bytes(limits.maxUncompressedBytes);
        file.terminate();
        return;
      }
      if (!sheet) return;
      // a tag may span two chunks: the last 4 characters (shorter than a whole `<row ` match) carry over
      const text = tail + Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length).toString('latin1');
      rows += text.match(ROW_TAG)?.length ?? 0;
      tail = text.slice(-4);
      if (rows > limits.maxLines) {
        failure = ImportLimitExceeded.rows(limits.maxLines);
        file.terminate();
      }
    };
    file.start();
  });
  unzip.register(UnzipInflate);
  unzip.register(UnzipPassThrough);
  unzip.push(data, true);
  if (failure) throw failure;
  // within the limits: is it a workbook at all (an OpenDocument spreadsheet is a zip too)?
  if (!declared.some((f) => f.name === 'xl/workbook.xml')) {
    const names = new Set(declared.map((f) => f.name));
    throw new UnsupportedFileFormat(
      names.has('mimetype') && names.has('content.xml')
        ? 'This is an OpenDocument (.ods) file: only XLSX workbooks are read (save it as .xlsx)'
        : 'This zip archive is not an XLSX workbook (it has no xl/workbook.xml)',
    );
  }
}

/** A cell value as the grid reads it: text, number, boolean or a native date (formulas: their result). */
function cellOf(v: ExcelJS.CellValue | undefined): InCell {
  if (v === null || v === undefined) return null;
  if (v instanceof Date || typeof v !== 'object') return v as InCell;
  if ('richText' in v) return v.richText.map((t) => t.text).join('');
  if ('result' in v) return cellOf(v.result as ExcelJS.CellValue);
  if ('text' in v) return typeof v.text === 'string' ? v.text : cellOf(v.text as ExcelJS.CellValue);
  if ('error' in v) throw new Error(`a cell holds the spreadsheet error ${String(v.error)}`);
  return null;
}

/**
 * Every worksheet of an XLSX file as a table. The archive is inspected first (`inspectXlsx`); then the
 * worksheets are streamed (ExcelJS's streaming reader): rows arrive one at a time, nothing but the grid
 * being built is kept. Native dates, times and numbers stay typed for the grid (see grid.ts).
 */
export async function fromXlsx(
  data: Buffer,
  limits: ImportLimits = DEFAULT_IMPORT_LIMITS,
): Promise<Record<string, unknown>[]> {
  inspectXlsx(data, limits);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([data]), {
    sharedStrings: 'cache',
    styles: 'cache', // number formats: which numbers are dates
    hyperlinks: 'ignore',
    worksheets: 'emit',
    entries: 'emit',
  });
  const tables: Record<string, unknown>[] = [];
  for await (const worksheet of reader) {
    const grid: InCell[][] = [];
    for await (const row of worksheet as AsyncIterable<ExcelJS.Row>) {
      if (row.number > limits.maxLines) throw ImportLimitExceeded.rows(limits.maxLines);
      const values = row.values as ExcelJS.CellValue[];
      const cells: InCell[] = [];
      for (let c = 1; c < values.length; c++) cells.push(cellOf(values[c]));
      grid[row.number - 1] = cells;
    }
    for (let i = 0; i < grid.length; i++) grid[i] ??= [];
    if (grid.length) tables.push(fromGrid(grid));
  }
  return tables;
}
