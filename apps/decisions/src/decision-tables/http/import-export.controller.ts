import { AppError } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DecisionTableAuthoringService } from '../application/decision-table-authoring.service';
import { DecisionTableErrors as E } from '../errors';
import {
  isExportFormat,
  isImportFileFormat,
  readTableFile,
  writeTableFile,
} from '../application/table-files';
import { optionalVersion } from '../request-values';

/**
 * Import (`json` body array; `excel`, `dmn`, `csv` as multipart file) and export in every format: the
 * upload and the response headers here, the formats in `application/table-files.ts`.
 */
@ApiTags('decision tables: import/export')
@Controller('api/v1/decision-tables')
export class ImportExportController {
  constructor(
    @Inject(DecisionTableAuthoringService) private readonly tables: DecisionTableAuthoringService,
  ) {}

  @Post('import')
  @HttpCode(200)
  async import(@Query('format') format: string | undefined, @Req() req: any, @Body() body: unknown) {
    const kind = (format ?? 'json').toLowerCase();
    let definitions: unknown[];
    if (kind === 'json') {
      if (!Array.isArray(body))
        throw AppError.badRequest(E.InvalidImport, 'format=json needs a JSON array of table definitions');
      definitions = body;
    } else if (isImportFileFormat(kind)) {
      if (typeof req.isMultipart !== 'function' || !req.isMultipart())
        throw AppError.badRequest(
          E.InvalidImport,
          `format=${kind} needs a multipart/form-data upload with a file part`,
        );
      const file = await req.file();
      if (!file) throw AppError.badRequest(E.InvalidImport, 'No file part in the upload');
      let data: Buffer;
      try {
        data = await file.toBuffer();
      } catch (error) {
        if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE')
          throw new AppError(413, 'PAYLOAD_TOO_LARGE', 'The uploaded file is too large');
        throw error;
      }
      definitions = await readTableFile(kind, data);
    } else
      throw AppError.badRequest(E.InvalidFormat, `Unknown import format '${format}' (json, excel, dmn, csv)`);
    return this.tables.importMany(definitions);
  }

  @Get(':id/export')
  async export(
    @Param('id') id: string,
    @Query('format') format: string | undefined,
    @Query('version') version: string | undefined,
    @Res({ passthrough: true }) reply: any,
  ) {
    const kind = (format ?? 'json').toLowerCase();
    if (!isExportFormat(kind))
      throw AppError.badRequest(
        E.InvalidFormat,
        `Unknown export format '${format}' (json, excel, dmn, xml, csv)`,
      );
    const { id: tableId, definition } = await this.tables.exportDefinition(id, optionalVersion(version));
    const file = await writeTableFile(kind, definition, tableId);
    if (file.contentType) reply.header('content-type', file.contentType);
    if (file.attachmentName)
      reply.header('content-disposition', `attachment; filename="${file.attachmentName}"`);
    return file.body;
  }
}
