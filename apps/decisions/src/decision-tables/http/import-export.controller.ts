import { CommonErrorCodes } from '@arbiter/contracts';
import { ApiErrorFamily, ApiErrors, AppError } from '@arbiter/platform';
import { Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiQuery,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { DecisionTableAuthoringService } from '../application/decision-table-authoring.service';
import {
  EXPORT_FORMATS,
  IMPORT_FILE_FORMATS,
  isExportFormat,
  importLimits,
  isImportFileFormat,
  readTableFile,
  TABLE_FILE_TYPES,
  writeTableFile,
} from '../application/table-files';
import { DecisionTableErrorFamily, DecisionTableErrors as E } from '../errors';
import type { DecisionNotImported } from '../formats/dmn';
import { DecisionTablesSettings } from '../../settings';
import { optionalVersion } from '../request-values';
import { DecisionTableDto } from './dto';
import { ApiTableIdParam, ApiVersionQuery } from './openapi-parts';
import { ImportResultView, TableDefinitionView } from './views';
import { RequireDecisionsAccess } from '../../auth';

/** What the import reads from a request: the JSON body, or the multipart upload (`@fastify/multipart`). */
interface ImportRequest {
  body?: unknown;
  isMultipart?: () => boolean;
  file?: () => Promise<{ toBuffer(): Promise<Buffer> } | undefined>;
}

const IMPORT_FORMATS = ['json', ...IMPORT_FILE_FORMATS];

const IMPORT_EXAMPLE = [
  {
    name: 'Loan risk',
    hitPolicy: 'First',
    inputColumns: [
      { name: 'age', type: 'number', required: true },
      { name: 'country', type: 'string' },
    ],
    outputColumns: [{ name: 'risk', type: 'string' }],
    rows: [
      { id: 'r1', priority: 1, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } },
      { id: 'r2', priority: 2, inputConditions: { age: '>= 18' }, outputs: { risk: 'adult' } },
    ],
  },
];

/**
 * Import (`json` body array; `excel`, `dmn`, `csv` as multipart file) and export in every format: the
 * upload and the response headers here, the formats in `application/table-files.ts`.
 */
@ApiTags('decision tables: import/export')
@ApiErrorFamily(DecisionTableErrorFamily)
@ApiExtraModels(DecisionTableDto, TableDefinitionView)
@Controller('api/v1/decision-tables')
export class ImportExportController {
  constructor(
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
    @Inject(DecisionTablesSettings) private readonly settings: DecisionTablesSettings,
  ) {}

  @Post('import')
  @RequireDecisionsAccess('author')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Import tables from JSON, a spreadsheet, DMN 1.3 XML or CSV',
    description:
      '`format=json`: a JSON array of table definitions. `excel` (XLSX), `dmn`/`xml` (DMN 1.1–1.5) and `csv`: a ' +
      'multipart/form-data upload of one file (the first file part is read, whatever its field name; at most ' +
      '`DecisionTables:MaxUploadBytes`, 5 MiB by default, else 413 `PAYLOAD_TOO_LARGE`). Each table is created ' +
      'as version 1 in its own transaction (written whole or not at all); a name that exists is `skipped`, an ' +
      'invalid definition `failed` (with its reason). 200: nothing failed. 207: some tables failed, others were ' +
      'created (`failed` counts them). 400 `IMPORT_FAILED`: tables failed and none was created (`details` names ' +
      'each). A file that cannot be read is 400 `INVALID_IMPORT`, one in a format not read (OpenDocument ' +
      '`.ods`, legacy `.xls`) 400 `UNSUPPORTED_FILE_FORMAT`, one holding no table 400 `IMPORT_EMPTY`, an unknown ' +
      '`format` 400 `INVALID_FORMAT`.',
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'array',
            items: { $ref: getSchemaPath(DecisionTableDto) },
            description: 'Table definitions (`format=json`).',
          },
          example: IMPORT_EXAMPLE,
        },
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: {
                type: 'string',
                format: 'binary',
                description: 'The XLSX, DMN XML or CSV file (`format=excel|dmn|xml|csv`).',
              },
            },
          },
        },
      },
    },
  })
  @ApiQuery({
    name: 'format',
    required: false,
    description: 'What the request holds (case-insensitive).',
    schema: { type: 'string', enum: IMPORT_FORMATS, default: 'json' },
  })
  @ApiOkResponse({ type: ImportResultView, description: 'Every table was created or skipped (`failed`: 0).' })
  @ApiResponse({
    status: 207,
    type: ImportResultView,
    description:
      'Some tables failed (`failed` > 0, each with its `error`); the others were created or skipped.',
  })
  async import(
    @Query('format') format: string | undefined,
    @Req() req: ImportRequest,
    @Res() reply: { code(status: number): { send(body: unknown): unknown } },
  ) {
    const kind = (format ?? 'json').toLowerCase();
    let definitions: unknown[];
    const notImported: DecisionNotImported[] = [];
    if (kind === 'json') {
      if (!Array.isArray(req.body))
        throw AppError.badRequest(E.InvalidImport, 'format=json needs a JSON array of table definitions');
      definitions = req.body;
    } else if (isImportFileFormat(kind)) {
      definitions = await readTableFile(
        kind,
        await readUpload(req, kind),
        importLimits(this.settings),
        notImported,
      );
    } else
      throw AppError.badRequest(
        E.InvalidFormat,
        `Unknown import format '${format}' (${IMPORT_FORMATS.join(', ')})`,
      );
    const result = await this.tables.importMany(
      definitions,
      notImported.map((d) => ({
        name: d.name,
        reason: `A DMN decision of kind '${d.kind}', not a decision table: not imported`,
      })),
    );
    // @Res(): Nest would set the route's one status over ours
    reply.code(result.failed > 0 ? 207 : 200).send(result);
  }

  @Get(':id/export')
  @RequireDecisionsAccess('viewer')
  @ApiOperation({
    summary: 'Export a table (latest version, or `version`) as JSON, XLSX, DMN 1.3 XML or CSV',
    description:
      '`json`: the definition as stored; `excel`: an XLSX workbook (one sheet); `dmn` and `xml`: DMN 1.3 XML; ' +
      '`csv`: the table as CSV with `#` metadata lines. Every format is sent as an attachment with a file name.',
  })
  @ApiTableIdParam()
  @ApiQuery({
    name: 'format',
    required: false,
    description: 'The file format (case-insensitive).',
    schema: { type: 'string', enum: [...EXPORT_FORMATS], default: 'json' },
  })
  @ApiVersionQuery('Version to export (default: the latest).')
  @ApiProduces('application/json', TABLE_FILE_TYPES.excel, TABLE_FILE_TYPES.dmn, TABLE_FILE_TYPES.csv)
  @ApiOkResponse({
    description: 'The table in the format asked for.',
    headers: {
      'Content-Disposition': {
        description:
          '`attachment; filename="<table name>.<json|xlsx|dmn|xml|csv>"` (the name reduced to letters, digits, ' +
          '`_`, `.` and `-`; `table` when nothing is left).',
        schema: { type: 'string' },
      },
    },
    content: {
      'application/json': { schema: { $ref: getSchemaPath(TableDefinitionView) } },
      [TABLE_FILE_TYPES.excel]: { schema: { type: 'string', format: 'binary' } },
      [TABLE_FILE_TYPES.dmn]: { schema: { type: 'string', description: 'DMN 1.3 XML.' } },
      [TABLE_FILE_TYPES.csv]: { schema: { type: 'string', description: 'CSV (UTF-8).' } },
    },
  })
  @ApiErrors(400, 404)
  async export(
    @Param('id') id: string,
    @Query('format') format: string | undefined,
    @Query('version') version: string | undefined,
    @Res({ passthrough: true }) reply: { header(name: string, value: string): unknown },
  ) {
    const kind = (format ?? 'json').toLowerCase();
    if (!isExportFormat(kind))
      throw AppError.badRequest(
        E.InvalidFormat,
        `Unknown export format '${format}' (${EXPORT_FORMATS.join(', ')})`,
      );
    const { id: tableId, definition } = await this.tables.exportDefinition(id, optionalVersion(version));
    const file = await writeTableFile(kind, definition, tableId);
    if (file.contentType) reply.header('content-type', file.contentType);
    reply.header('content-disposition', `attachment; filename="${file.attachmentName}"`);
    return file.body;
  }
}

/**
 * The bytes of the upload's first file. An upload that cannot be read is the client's problem: too large
 * (the file, or too many parts) is 413 `PAYLOAD_TOO_LARGE`, malformed (the plugin's other 4xx) 400
 * `INVALID_IMPORT`.
 */
async function readUpload(req: ImportRequest, kind: string): Promise<Buffer> {
  if (typeof req.isMultipart !== 'function' || !req.isMultipart() || typeof req.file !== 'function')
    throw AppError.badRequest(
      E.InvalidImport,
      `format=${kind} needs a multipart/form-data upload with a file part`,
    );
  try {
    const file = await req.file();
    if (!file) throw AppError.badRequest(E.InvalidImport, 'No file part in the upload');
    return await file.toBuffer();
  } catch (error) {
    if (error instanceof AppError) throw error;
    const { code, statusCode } = error as { code?: string; statusCode?: number };
    if (statusCode === 413)
      throw new AppError(
        413,
        CommonErrorCodes.PayloadTooLarge,
        code === 'FST_REQ_FILE_TOO_LARGE'
          ? 'The uploaded file is too large'
          : 'The upload has too many parts (one file is read)',
      );
    if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500)
      throw AppError.badRequest(E.InvalidImport, `The upload cannot be read: ${(error as Error).message}`);
    throw error;
  }
}
