/**
 * Limits an uploaded file is checked against before (or, for CSV, while) it is parsed, so that a small
 * upload cannot cost gigabytes or seconds: tables per import, lines per table file, and for XLSX (a zip
 * archive) its entries and their decompressed size.
 */
export interface ImportLimits {
  /** tables one import may create (JSON array items, DMN decision tables, XLSX worksheets) */
  maxTables: number;
  /** lines of one CSV file or XLSX worksheet: metadata lines, the header and the rows */
  maxLines: number;
  /** entries of an XLSX archive */
  maxArchiveEntries: number;
  /** decompressed bytes of all the entries of an XLSX archive together */
  maxUncompressedBytes: number;
}

export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  maxTables: 100,
  maxLines: 50_000,
  maxArchiveEntries: 200,
  maxUncompressedBytes: 64 * 1024 * 1024,
};

/** The code (in the service's error catalog) and the configuration key of each limit. */
export const IMPORT_LIMIT_CODES = {
  maxTables: { code: 'IMPORT_TOO_MANY_TABLES', key: 'DecisionTables:MaxImportTables' },
  maxLines: { code: 'IMPORT_TOO_MANY_ROWS', key: 'DecisionTables:MaxImportLines' },
  maxArchiveEntries: { code: 'ARCHIVE_TOO_MANY_ENTRIES', key: 'DecisionTables:MaxImportArchiveEntries' },
  maxUncompressedBytes: { code: 'ARCHIVE_TOO_LARGE', key: 'DecisionTables:MaxImportUncompressedBytes' },
} as const;

/** An upload goes past one of the limits; the service answers 413 with the limit's code. */
export class ImportLimitExceeded extends Error {
  readonly code: (typeof IMPORT_LIMIT_CODES)[keyof ImportLimits]['code'];
  constructor(
    readonly limit: keyof ImportLimits,
    readonly max: number,
    what: string,
  ) {
    super(`${what} (at most ${max}, ${IMPORT_LIMIT_CODES[limit].key})`);
    this.name = 'ImportLimitExceeded';
    this.code = IMPORT_LIMIT_CODES[limit].code;
  }

  static tables(max: number): ImportLimitExceeded {
    return new ImportLimitExceeded('maxTables', max, 'The upload holds too many tables');
  }
  static rows(max: number): ImportLimitExceeded {
    return new ImportLimitExceeded('maxLines', max, 'A table of the upload has too many lines');
  }
  static entries(max: number): ImportLimitExceeded {
    return new ImportLimitExceeded('maxArchiveEntries', max, 'The XLSX archive has too many entries');
  }
  static bytes(max: number): ImportLimitExceeded {
    return new ImportLimitExceeded(
      'maxUncompressedBytes',
      max,
      'The XLSX archive decompresses to too many bytes',
    );
  }
}

/** An upload in a format the import does not read (an OpenDocument or legacy Excel file sent as `excel`). */
export class UnsupportedFileFormat extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedFileFormat';
  }
}
