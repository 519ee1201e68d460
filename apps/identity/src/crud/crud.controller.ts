import { RequirePermissions } from '@arbiter/auth';
import { createValidationPipe } from '@arbiter/platform';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Put,
  Query,
  Type,
} from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ok } from './envelope';
import { CrudService } from './crud.service';
import { EntityDefinition } from './entity-definition';

const pipe = createValidationPipe();

/**
 * Builds the generic CRUD controller for one entity type at `api/v{version}/{plural}`:
 * GET (paged: `pageIndex` 1-based, `pageSize`), GET by id, POST (201), PUT (partial), DELETE (soft),
 * each behind `<Prefix>.View|Create|Update|Delete`, all in the hosted envelope.
 */
export function createCrudController(def: EntityDefinition, version: string): Type<unknown> {
  const p = def.permissionPrefix;

  @ApiTags(def.plural)
  @ApiBearerAuth()
  @Controller(`api/v${version}/${def.plural}`)
  class CrudController {
    constructor(@Inject(CrudService) readonly crud: CrudService) {}

    @Get()
    @RequirePermissions(`${p}.View`)
    async list(@Query() query: Record<string, unknown>) {
      return ok(await this.crud.list(def, query));
    }

    @Get(':id')
    @RequirePermissions(`${p}.View`)
    async get(@Param('id') id: string) {
      return ok(await this.crud.get(def, id));
    }

    @Post()
    @HttpCode(201)
    @RequirePermissions(`${p}.Create`)
    async create(@Body() body: unknown) {
      const dto = await pipe.transform(body ?? {}, { type: 'body', metatype: def.createDto });
      return ok(await this.crud.create(def, dto as Record<string, unknown>));
    }

    @Put(':id')
    @RequirePermissions(`${p}.Update`)
    async update(@Param('id') id: string, @Body() body: unknown) {
      const dto = await pipe.transform(body ?? {}, { type: 'body', metatype: def.updateDto });
      return ok(await this.crud.update(def, id, dto as Record<string, unknown>));
    }

    @Delete(':id')
    @RequirePermissions(`${p}.Delete`)
    async remove(@Param('id') id: string) {
      return ok(await this.crud.remove(def, id));
    }
  }
  Object.defineProperty(CrudController, 'name', { value: `${p}CrudController` });
  return CrudController;
}
