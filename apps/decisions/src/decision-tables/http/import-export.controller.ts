import { AppError } from '@arbiter/platform';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { DecisionTableAuthoringService } from '../application/decision-table-authoring.service';
import { DecisionTableErrors as E } from '../errors';
import { fromCsv, toCsv } from '../formats/csv';
import { fromDmn, toDmn } from '../formats/dmn';
import { fromXlsx, toXlsx } from '../formats/xlsx';
import { optionalVersion } from '../request-values';

const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** Import (`json` body array; `excel`, `dmn`, `csv` as multipart file) and export in every format. */
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
    } else if (kind === 'excel' || kind === 'dmn' || kind === 'xml' || kind === 'csv') {
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
      try {
        definitions =
          kind === 'excel'
            ? await fromXlsx(data)
            : kind === 'csv'
              ? [fromCsv(data.toString('utf8'))]
              : fromDmn(data.toString('utf8'));
      } catch (error) {
        throw AppError.badRequest(
          E.InvalidImport,
          `The ${kind} file cannot be read: ${(error as Error).message}`,
        );
      }
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
    if (!['json', 'excel', 'dmn', 'xml', 'csv'].includes(kind))
      throw AppError.badRequest(
        E.InvalidFormat,
        `Unknown export format '${format}' (json, excel, dmn, xml, csv)`,
      );
    const { id: tableId, definition: def } = await this.tables.exportDefinition(id, optionalVersion(version));
    const file = def.name.replace(/[^A-Za-z0-9_.-]+/g, '_') || 'table';
    switch (kind) {
      case 'excel':
        reply
          .header('content-type', XLSX_TYPE)
          .header('content-disposition', `attachment; filename="${file}.xlsx"`);
        return toXlsx(def);
      case 'dmn':
      case 'xml':
        reply.header('content-type', 'application/xml; charset=utf-8');
        return toDmn(def, tableId);
      case 'csv':
        reply.header('content-type', 'text/csv; charset=utf-8');
        return toCsv(def);
      default:
        return def;
    }
  }
}
