import { AppError } from '@arbiter/platform';
import { DecisionTableErrors as E } from '../errors';
import { fromCsv, toCsv } from '../formats/csv';
import { fromDmn, toDmn } from '../formats/dmn';
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

/** The table definitions of an uploaded file; 400 INVALID_IMPORT naming the format when it cannot be read. */
export async function readTableFile(kind: ImportFileFormat, data: Buffer): Promise<unknown[]> {
  try {
    if (kind === 'excel') return await fromXlsx(data);
    if (kind === 'csv') return [fromCsv(data.toString('utf8'))];
    return fromDmn(data.toString('utf8'));
  } catch (error) {
    throw AppError.badRequest(
      E.InvalidImport,
      `The ${kind} file cannot be read: ${(error as Error).message}`,
    );
  }
}

/** An exported table: the body, its media type (JSON when absent) and, for downloads, a file name. */
export interface TableFile {
  body: unknown;
  contentType?: string;
  attachmentName?: string;
}

/** The media types of the exports (`json`: `application/json`). */
export const TABLE_FILE_TYPES = {
  excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  dmn: 'application/xml',
  csv: 'text/csv',
} as const;

/** Writes a stored definition in an export format; `tableId` names the DMN model. */
export async function writeTableFile(
  kind: ExportFormat,
  definition: StoredDefinition,
  tableId: string,
): Promise<TableFile> {
  switch (kind) {
    case 'excel': {
      const file = definition.name.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'table';
      return {
        body: await toXlsx(definition),
        contentType: TABLE_FILE_TYPES.excel,
        attachmentName: `${file}.xlsx`,
      };
    }
    case 'dmn':
    case 'xml':
      return { body: toDmn(definition, tableId), contentType: `${TABLE_FILE_TYPES.dmn}; charset=utf-8` };
    case 'csv':
      return { body: toCsv(definition), contentType: `${TABLE_FILE_TYPES.csv}; charset=utf-8` };
    default:
      return { body: definition };
  }
}
