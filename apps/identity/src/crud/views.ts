import type { HostedEnvelope } from '@arbiter/contracts';
import { ERROR_FAMILY_REF } from '@arbiter/platform';
import type { Type } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiResponse, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import type { DeletedEntry, Page } from './crud.service';

/**
 * Response schemas of the hosted endpoints: the success envelope `{ isSuccess, result, errors, timestamp }`
 * with `result` typed per route, and the generic CRUD results (a page, a saved entry, a deletion) built
 * from an entity's view class. Each builder returns one named class per result type (the same class when
 * asked twice), so a generated client gets a type per envelope: `UserView` → `UserPageView`,
 * `SavedUserView`, `UserPageEnvelope`, `SavedUserEnvelope`. Failures are the service's error family.
 */

/** An error status of one route, described for it (which code, when), with the error family's body. */
export function ApiErrorResponse(status: number, description: string): MethodDecorator & ClassDecorator {
  return ApiResponse({ status, description, schema: { $ref: ERROR_FAMILY_REF } });
}

/** One entry of the envelope's `errors` (always empty on success). */
export class HostedErrorItemView {
  @ApiProperty({ description: 'Stable code naming the problem.', example: 'VALIDATION_FAILED' })
  code!: string;

  @ApiProperty({ description: 'What went wrong, for a person.' })
  message!: string;
}

/** `UserView` → `User`: the name the derived schemas are built from. */
function baseName(view: Type<unknown>): string {
  return view.name.replace(/View$/, '');
}

const built = new Map<string, { from: Type<unknown>[]; type: Type<unknown> }>();

/**
 * One class per schema name (also its class name); the same sources give the same class, other sources
 * under that name throw.
 */
function once<T>(name: string, from: Type<unknown>[], build: () => Type<T>): Type<T> {
  const known = built.get(name);
  if (known) {
    if (known.from.length !== from.length || known.from.some((t, i) => t !== from[i])) {
      throw new Error(`Two different response schemas would both be named '${name}'`);
    }
    return known.type as Type<T>;
  }
  const type = build();
  Object.defineProperty(type, 'name', { value: name });
  built.set(name, { from, type });
  return type;
}

/**
 * `HostedEnvelope<X>` as a schema (`XEnvelope`): the success body with `result` of the given view class,
 * or one of several (`oneOf`, then name the envelope).
 */
export function HostedEnvelopeOf<T>(
  result: Type<T> | Type<unknown>[],
  name = `${baseName(Array.isArray(result) ? result[0] : result)}Envelope`,
): Type<HostedEnvelope<T>> {
  const results = Array.isArray(result) ? result : [result];
  return once(name, results, () => {
    const resultProperty =
      results.length === 1
        ? { type: results[0], description: 'The answer of the operation.' }
        : {
            oneOf: results.map((r) => ({ $ref: getSchemaPath(r) })),
            description: 'The answer of the operation (which one: see the operation).',
          };

    @ApiSchema({
      name,
      description: `Success in the hosted envelope: \`result\` is ${results.map((r) => `\`${r.name}\``).join(' or ')}.`,
    })
    @ApiExtraModels(...results)
    class Envelope implements HostedEnvelope<T> {
      @ApiProperty({ type: Boolean, enum: [true], description: 'Always true on a 2xx answer.' })
      isSuccess!: true;

      @ApiProperty(resultProperty as never)
      result!: T;

      @ApiProperty({
        type: [HostedErrorItemView],
        maxItems: 0,
        description: 'Empty on success (failures are the error family).',
      })
      errors!: HostedErrorItemView[];

      @ApiProperty({ format: 'date-time', description: 'When the answer was written (UTC).' })
      timestamp!: string;
    }
    return Envelope;
  });
}

/** A page of entries (`XPageView`): `pageIndex` is 1-based, entries oldest first. */
export function PageOf<T>(item: Type<T>): Type<Page<T>> {
  const name = `${baseName(item)}PageView`;
  return once(name, [item], () => {
    @ApiSchema({ name, description: `A page of \`${item.name}\` entries, oldest first.` })
    class PageView implements Page<T> {
      @ApiProperty({ type: [item] })
      items!: T[];

      @ApiProperty({ type: 'integer', minimum: 1, description: 'This page (1-based).', example: 1 })
      pageIndex!: number;

      @ApiProperty({ type: 'integer', minimum: 1, description: 'Entries per page.', example: 20 })
      pageSize!: number;

      @ApiProperty({
        type: 'integer',
        minimum: 0,
        description: 'Entries of the tenant in all pages.',
        example: 1,
      })
      totalCount!: number;

      @ApiProperty({ type: 'integer', minimum: 0, example: 1 })
      totalPages!: number;
    }
    return PageView;
  });
}

/** What a create or an update answers (`SavedXView`): the entry as stored, and its id as `entityId`. */
export function SavedEntryOf<T extends object>(view: Type<T>): Type<T & { entityId: string }> {
  const name = `Saved${baseName(view)}View`;
  return once(name, [view], () => {
    @ApiSchema({ name, description: `The \`${view.name}\` as stored, with its id as \`entityId\`.` })
    class SavedView extends (view as Type<object>) {
      @ApiProperty({
        format: 'uuid',
        description: 'The id of the created or updated entry (the same as `id`).',
        example: '0b6f4c1e-8d1a-4f3e-9a51-2f4b7c9d0e12',
      })
      entityId!: string;
    }
    return SavedView as Type<T & { entityId: string }>;
  });
}

/** The answer of a (soft) delete. */
export class DeletedEntryView implements DeletedEntry {
  @ApiProperty({ format: 'uuid', example: '0b6f4c1e-8d1a-4f3e-9a51-2f4b7c9d0e12' })
  entityId!: string;

  @ApiProperty({ type: Boolean, enum: [true] })
  deleted!: true;

  @ApiProperty({ format: 'date-time', description: 'When the entry was marked deleted.' })
  deletionTime!: string;
}

/** An example of a success body: `result` in the hosted envelope. */
export function hostedExample<T>(result: T): HostedEnvelope<T> {
  return { isSuccess: true, result, errors: [], timestamp: '2025-01-15T09:30:00.000Z' };
}
