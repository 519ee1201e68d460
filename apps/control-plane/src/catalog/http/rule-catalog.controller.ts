import { Policies, RequirePolicy } from '@arbiter/auth';
import { ApiErrorFamily, ApiErrors, AppError } from '@arbiter/platform';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CatalogErrorFamily, CatalogErrors } from '../application/errors';
import { RuleCatalog } from '../application/rule-catalog';
import { RuleCatalogQueryDto } from './dto';
import { CatalogSourcesView, RuleCatalogGroupView, RuleCatalogItemView } from './views';

@ApiTags('rule catalog')
@ApiErrorFamily(CatalogErrorFamily)
@Controller('api/v1/rule-catalog')
export class RuleCatalogController {
  constructor(@Inject(RuleCatalog) private readonly catalog: RuleCatalog) {}

  @Get()
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({
    summary: 'List the rule catalog by category',
    description: 'Catalog groups sorted by category, items by code; hidden items only on request.',
  })
  @ApiOkResponse({ description: 'The catalog groups', type: RuleCatalogGroupView, isArray: true })
  @ApiErrors(400)
  list(@Query() query: RuleCatalogQueryDto) {
    return this.catalog.groups({
      category: query.category,
      search: query.search,
      includeHidden: /^(true|1)$/i.test(query.includeHidden ?? ''),
    });
  }

  @Get('sources')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({ summary: 'Manifest sources of the rule catalog' })
  @ApiOkResponse({ description: 'The manifests the catalog was read from', type: CatalogSourcesView })
  sources() {
    return { sources: this.catalog.sources() };
  }

  @Get(':code')
  @RequirePolicy(Policies.Viewer)
  @ApiOperation({ summary: 'One rule catalog item', description: 'Hidden items included.' })
  @ApiParam({ name: 'code', description: 'The rule code.', example: 'CREDIT_SCORE' })
  @ApiOkResponse({ description: 'The catalog item', type: RuleCatalogItemView })
  @ApiErrors(404)
  item(@Param('code') code: string) {
    const item = this.catalog.find(code);
    if (!item)
      throw AppError.notFound(CatalogErrors.RuleNotFound, `Rule '${code}' is not in the rule catalog`);
    return item;
  }
}
