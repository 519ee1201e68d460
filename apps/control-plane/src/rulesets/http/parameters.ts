import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiQuery } from '@nestjs/swagger';
import { WORKFLOW_NAME } from '../../shared';
import { WORKFLOW_EXAMPLE } from './examples';

/**
 * The path and query parameters of the rule set routes, described as the handlers parse them (a bad
 * workflow name or version number is a 400 `INVALID_WORKFLOW_NAME` / `INVALID_VERSION`, a bad paging
 * number a 400 `VALIDATION_FAILED`).
 */

export function ApiWorkflowParam(name: 'workflow' | 'workflowName'): MethodDecorator {
  return ApiParam({
    name,
    description:
      "The workflow: 1-128 characters, letters, digits, '_', '.', '-', starting with a letter or digit.",
    schema: { type: 'string', pattern: WORKFLOW_NAME.source, example: WORKFLOW_EXAMPLE },
  });
}

const VERSION_SCHEMA = { type: 'integer', minimum: 1, maximum: 999_999_999 } as const;

export function ApiVersionParam(name = 'version', description = 'The version number.'): MethodDecorator {
  return ApiParam({ name, description, schema: { ...VERSION_SCHEMA, example: 2 } });
}

/** `limit` and `offset` of a version list. */
export function ApiVersionPaging(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      description: 'Versions per page (0 or absent: 50).',
      schema: { type: 'integer', minimum: 0, maximum: 500, default: 50 },
    }),
    ApiQuery({
      name: 'offset',
      required: false,
      description: 'Versions to skip, newest first.',
      schema: { type: 'integer', minimum: 0, default: 0 },
    }),
  );
}

/** `version` and `format` of the GET export routes. */
export function ApiExportQuery(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'version',
      required: false,
      description: 'The version to export; the active version when absent.',
      schema: { ...VERSION_SCHEMA },
    }),
    ApiQuery({
      name: 'format',
      required: false,
      description: "The answer's format: the rule set as JSON (default) or as YAML.",
      schema: { type: 'string', enum: ['json', 'yaml'], default: 'json' },
    }),
  );
}

/** `page` and `pageSize` of an audit page. */
export function ApiAuditPaging(): MethodDecorator {
  return applyDecorators(
    ApiQuery({
      name: 'page',
      required: false,
      description: 'Page number, from 1.',
      schema: { type: 'integer', minimum: 1, default: 1 },
    }),
    ApiQuery({
      name: 'pageSize',
      required: false,
      description: 'Entries per page.',
      schema: { type: 'integer', minimum: 1, maximum: 200, default: 20 },
    }),
  );
}
