import { RequirePermissions } from '@arbiter/auth';
import { ApiErrors, createValidationPipe } from '@arbiter/platform';
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
import {
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import { CrudErrors } from './crud-errors';
import { ok } from './envelope';
import { CRUD_PAGING, CrudService } from './crud.service';
import { EntityDefinition } from './entity-definition';
import { ApiErrorResponse, DeletedEntryView, HostedEnvelopeOf, PageOf, SavedEntryOf } from './views';

const pipe = createValidationPipe();

/**
 * Builds the generic CRUD controller for one entity type at `api/v{version}/{plural}`:
 * GET (paged: `pageIndex` 1-based, `pageSize`), GET by id, POST (201), PUT (partial), DELETE (soft),
 * each behind `<Prefix>.View|Create|Update|Delete`, all in the hosted envelope.
 *
 * Each entity type gets its own controller, so the OpenAPI document lists each entity's concrete paths
 * (`/api/v1/users`, `/api/v1/roles`, …) under its own tag, with the entity's request DTOs and its view
 * (`def.view`) in the answers: a client gets `usersCrudList(): UserPageEnvelope`, not one templated
 * `/{entity}` path whose body is a `oneOf` it would have to narrow itself.
 */
export function createCrudController(def: EntityDefinition, version: string): Type<unknown> {
  const p = def.permissionPrefix;
  const { singular, plural } = def;
  const needs = (action: string) => `Needs \`${p}.${action}\`.`;
  const idParam = ApiParam({
    name: 'id',
    description: `The ${singular}'s id (any other value than an existing ${singular}'s UUID is 404).`,
    schema: { type: 'string', format: 'uuid' },
    example: '0b6f4c1e-8d1a-4f3e-9a51-2f4b7c9d0e12',
  });
  const saved = HostedEnvelopeOf(SavedEntryOf(def.view));
  const notFound = ApiErrorResponse(404, `No such ${singular} in the tenant (\`${CrudErrors.NotFound}\`)`);
  const conflict = ApiErrorResponse(
    409,
    `A ${singular} with these values exists (\`${def.conflictCode ?? CrudErrors.Conflict}\`)`,
  );

  @ApiTags(plural)
  @Controller(`api/v${version}/${plural}`)
  class CrudController {
    constructor(@Inject(CrudService) readonly crud: CrudService) {}

    @Get()
    @RequirePermissions(`${p}.View`)
    @ApiOperation({
      summary: `List ${plural}`,
      description: `A page of the tenant's ${plural} (deleted ones left out), oldest first. ${needs('View')}`,
    })
    // pageSize above pageIndex: decorators apply bottom-up, and the document lists pageIndex first
    @ApiQuery({
      name: CRUD_PAGING.sizeParam,
      required: false,
      description: 'Entries per page.',
      schema: { type: 'integer', minimum: 1, maximum: CRUD_PAGING.maxSize, default: CRUD_PAGING.defaultSize },
    })
    @ApiQuery({
      name: CRUD_PAGING.pageParam,
      required: false,
      description: 'The page, 1-based.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    })
    @ApiOkResponse({ description: `A page of ${plural}`, type: HostedEnvelopeOf(PageOf(def.view)) })
    @ApiErrors(400)
    async list(@Query() query: Record<string, unknown>) {
      return ok(await this.crud.list(def, query));
    }

    @Get(':id')
    @RequirePermissions(`${p}.View`)
    @ApiOperation({ summary: `Get a ${singular}`, description: needs('View') })
    @idParam
    @ApiOkResponse({ description: `The ${singular}`, type: HostedEnvelopeOf(def.view) })
    @notFound
    async get(@Param('id') id: string) {
      return ok(await this.crud.get(def, id));
    }

    @Post()
    @HttpCode(201)
    @RequirePermissions(`${p}.Create`)
    @ApiOperation({ summary: `Create a ${singular}`, description: needs('Create') })
    @ApiBody({ type: def.createDto })
    @ApiCreatedResponse({ description: `The ${singular} as stored`, type: saved })
    @conflict
    async create(@Body() body: unknown) {
      const dto = await pipe.transform(body ?? {}, { type: 'body', metatype: def.createDto });
      return ok(await this.crud.create(def, dto as Record<string, unknown>));
    }

    @Put(':id')
    @RequirePermissions(`${p}.Update`)
    @ApiOperation({
      summary: `Update a ${singular}`,
      description: `A partial update: absent fields stay unchanged. ${needs('Update')}`,
    })
    @idParam
    @ApiBody({ type: def.updateDto })
    @ApiOkResponse({ description: `The ${singular} as stored`, type: saved })
    @notFound
    @conflict
    async update(@Param('id') id: string, @Body() body: unknown) {
      const dto = await pipe.transform(body ?? {}, { type: 'body', metatype: def.updateDto });
      return ok(await this.crud.update(def, id, dto as Record<string, unknown>));
    }

    @Delete(':id')
    @RequirePermissions(`${p}.Delete`)
    @ApiOperation({
      summary: `Delete a ${singular}`,
      description: `A soft delete: the ${singular} is marked deleted and no longer served. ${needs('Delete')}`,
    })
    @idParam
    @ApiOkResponse({ description: `The ${singular} is deleted`, type: HostedEnvelopeOf(DeletedEntryView) })
    @notFound
    async remove(@Param('id') id: string) {
      return ok(await this.crud.remove(def, id));
    }
  }
  Object.defineProperty(CrudController, 'name', { value: `${p}CrudController` });
  return CrudController;
}
