import { Policies, RequirePolicy } from '@arbiter/auth';
import { AppError } from '@arbiter/platform';
import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { CatalogErrors } from '../application/errors';
import { RuleCatalog } from '../application/rule-catalog';
import { RuleCatalogQueryDto } from './dto';

@ApiTags('rule catalog')
@Controller('api/v1/rule-catalog')
export class RuleCatalogController {
  constructor(@Inject(RuleCatalog) private readonly catalog: RuleCatalog) {}

  @Get()
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description:
      'Rule catalog groups [{ category, items: [{ code, displayName, category, tags, hidden, description?, sourceKey, inputSchema, outputSchema }] }]',
  })
  list(@Query() query: RuleCatalogQueryDto) {
    return this.catalog.groups({
      category: query.category,
      search: query.search,
      includeHidden: /^(true|1)$/i.test(query.includeHidden ?? ''),
    });
  }

  @Get('sources')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({
    description: 'Manifest sources of the catalog: { sources: [{ sourceKey, origin, generatedAt, rules }] }',
  })
  sources() {
    return { sources: this.catalog.sources() };
  }

  @Get(':code')
  @RequirePolicy(Policies.Viewer)
  @ApiOkResponse({ description: 'One rule catalog item (hidden items included)' })
  item(@Param('code') code: string) {
    const item = this.catalog.find(code);
    if (!item)
      throw AppError.notFound(CatalogErrors.RuleNotFound, `Rule '${code}' is not in the rule catalog`);
    return item;
  }
}
