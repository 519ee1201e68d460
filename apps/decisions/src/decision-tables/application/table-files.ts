import { XmlDocumentTypeRefused } from '@arbiter/dmn';
import { AppError } from '@arbiter/platform';
import { DecisionTablesSettings } from '../../settings';
import { DecisionTableErrors as E } from '../errors';
import { fromCsv, toCsv } from '../formats/csv';
import { DecisionNotImported, fromDmn, toDmn } from '../formats/dmn';
import { ImportLimitExceeded, ImportLimits, UnsupportedFileFormat } from '../formats/import-limits';
import { fromXlsx, toXlsx } from '../formats/xlsx';
import { StoredDefinition } from './table-model';

/** Formats an import reads from an uploaded file (`json` comes as the request body instead). */
export type ImportFileFormat = 'excel' | 'dmn' | 'xml' | 'csv';
export type ExportFormat = 'json' | ImportFileFormat;

export const IMPORT_FILE_FORMATS: readonly ImportFileFormat[] = ['excel', 'dmn', 'xml', 'csv'];
export const EXPORT_FORMATS: readonly ExportFormat[] = ['json', ...IMPORT_FILE_FORMATS];

export const isImportFileFormat = (kind: string): kind is ImportFileFormat =>
  (IMPORT_FILE_FORMATS as readonly string[]).includes(kind);
export const isExportFormat = (kind: string): kind is ExportFormat =>
  (EXPORT_FORMATS as readonly string[]).includes(kind);

/** The import limits of the service's settings (`DecisionTables:MaxImport*`). */
export function importLimits(settings: DecisionTablesSettings): ImportLimits {
  return {
    maxTables: settings.maxImportTables,
    maxLines: settings.maxImportLines,
    maxArchiveEntries: settings.maxImportArchiveEntries,
    maxUncompressedBytes: settings.maxImportUncompressedBytes,
  };
}

/** `<decisionTable` start tags of a DMN text, whatever the namespace prefix */
const DECISION_TABLE_TAG = /<(?:[\w.-]+:)?decisionTable[\s>/]/g;

/**
 * The table definitions of an uploaded file, within the import limits (checked before parsing: XLSX
 * archive entries, decompressed size and worksheet rows; DMN decision tables; CSV lines as they are
 * read). 413 with the limit's code past one; 400 XML_DOCTYPE_NOT_ALLOWED for a DMN file declaring a
 * document type (entities); 400 UNSUPPORTED_FILE_FORMAT for an OpenDocument or legacy Excel file sent
 * as `excel`; 400 IMPORT_EMPTY when the file holds no table; 400 INVALID_IMPORT naming the format when
 * the file cannot be read. A DMN file's decisions that are no decision table go to `notImported`.
 */
export async function readTableFile(
  kind: ImportFileFormat,
  data: Buffer,
  limits: ImportLimits,
  notImported?: DecisionNotImported[],
): Promise<unknown[]> {
  let tables: unknown[];
  try {
    if (kind === 'excel') tables = await fromXlsx(data, limits);
    else if (kind === 'csv') tables = [fromCsv(data.toString('utf8'), limits.maxLines)];
    else {
      const xml = data.toString('utf8');
      if ((xml.match(DECISION_TABLE_TAG)?.length ?? 0) > limits.maxTables)
        throw ImportLimitExceeded.tables(limits.maxTables);
      tables = fromDmn(xml, notImported);
    }
  } catch (error) {
    if (error instanceof ImportLimitExceeded) throw new AppError(413, error.code, error.message);
    if (error instanceof UnsupportedFileFormat)
      throw AppError.badRequest(E.UnsupportedFileFormat, error.message);
    if (error instanceof XmlDocumentTypeRefused)
      throw AppError.badRequest(E.XmlDoctypeNotAllowed, error.message);
    throw AppError.badRequest(
      E.InvalidImport,
      `The ${kind} file cannot be read: ${(error as Error).message}`,
    );
  }
  if (tables.length === 0)
    throw AppError.badRequest(
      E.ImportEmpty,
      kind === 'excel'
        ? 'The workbook holds no table (every worksheet is empty)'
        : 'The DMN file holds no decision table (decisions of other kinds are not imported)',
    );
  return tables;
}

/** An exported table: the body, its media type (JSON when absent) and the download's file name. */
export interface TableFile {
  body: unknown;
  contentType?: string;
  attachmentName: string;
}

/** The media types of the exports (`json`: `application/json`). */
export const TABLE_FILE_TYPES = {
  excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  dmn: 'application/xml',
  csv: 'text/csv',
} as const;

const FILE_EXTENSIONS: Record<ExportFormat, string> = {
  json: 'json',
  excel: 'xlsx',
  dmn: 'dmn',
  xml: 'xml',
  csv: 'csv',
};

/**
 * A download's file name: the table name reduced to `[A-Za-z0-9_.-]` (no quote, slash, control or
 * non-ASCII character reaches the header), at most 100 characters, no leading dot; `table` when nothing
 * is left.
 */
export function attachmentName(tableName: string, kind: ExportFormat): string {
  const base =
    tableName
      .replace(/[^A-Za-z0-9_.-]+/g, '_')
      .replace(/^[._]+/, '')
      .slice(0, 100) || 'table';
  return `${base}.${FILE_EXTENSIONS[kind]}`;
}

/** Writes a stored definition in an export format; `tableId` names the DMN model. */
export async function writeTableFile(
  kind: ExportFormat,
  definition: StoredDefinition,
  tableId: string,
): Promise<TableFile> {
  const name = attachmentName(definition.name, kind);
  switch (kind) {
    case 'excel':
      return { body: await toXlsx(definition), contentType: TABLE_FILE_TYPES.excel, attachmentName: name };
    case 'dmn':
    case 'xml':
      return {
        body: toDmn(definition, tableId),
        contentType: `${TABLE_FILE_TYPES.dmn}; charset=utf-8`,
        attachmentName: name,
      };
    case 'csv':
      return {
        body: toCsv(definition),
        contentType: `${TABLE_FILE_TYPES.csv}; charset=utf-8`,
        attachmentName: name,
      };
    default:
      return { body: definition, attachmentName: name };
  }
}
