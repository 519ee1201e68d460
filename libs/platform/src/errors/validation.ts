import { CommonErrorCodes } from '@arbiter/contracts';
import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, FieldProblem } from './app-error';

function collect(errors: ValidationError[], parent = ''): FieldProblem[] {
  return errors.flatMap((error) => {
    const field = parent
      ? /^\d+$/.test(error.property)
        ? `${parent}[${error.property}]`
        : `${parent}.${error.property}`
      : error.property;
    const own = Object.values(error.constraints ?? {}).map((message) => ({ field, message }));
    return [...own, ...collect(error.children ?? [], field)];
  });
}

/** Flattens class-validator errors into one `{ field, message }` per failed rule, with dotted paths. */
export function toFieldProblems(errors: ValidationError[]): FieldProblem[] {
  return collect(errors);
}

/**
 * How deeply a request body's arrays and objects may nest. Real documents (rule sets, flow graphs, tables)
 * stay under 20; a body nested thousands deep would overflow the stack of the recursive walkers behind the
 * pipe (class-transformer, class-validator) and of every later one.
 */
export const MAX_BODY_DEPTH = 128;

/** Whether `value` nests arrays or objects more than `limit` deep (iterative: no recursion of its own). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** ValidationPipe that first refuses a body nested past MAX_BODY_DEPTH (400 BODY_TOO_DEEP). */
class DepthBoundedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && nestsDeeperThan(value, MAX_BODY_DEPTH)) {
      throw AppError.badRequest(
        CommonErrorCodes.BodyTooDeep,
        `Request body nests arrays or objects more than ${MAX_BODY_DEPTH} levels deep`,
      );
    }
    return super.transform(value, metadata);
  }
}

/** The DTO pipe every app installs: depth bound, whitelist, transform, and the platform's validation error. */
export function createValidationPipe(): ValidationPipe {
  return new DepthBoundedValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: false,
    stopAtFirstError: false,
    exceptionFactory: (errors) => AppError.validation(toFieldProblems(errors)),
  });
}
