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
  return scanBody(value, limit) === 'deep';
}

/**
 * Text no database stores: a NUL character (PostgreSQL refuses it in `text` and in `jsonb`) or a lone
 * UTF-16 surrogate (not Unicode: it cannot be encoded as UTF-8).
 */
export function isUnstorableText(text: string): boolean {
  return text.indexOf('\u0000') >= 0 || !(text as unknown as WellFormed).isWellFormed();
}
interface WellFormed {
  isWellFormed(): boolean;
}

/**
 * One iterative walk over a body: 'deep' when arrays or objects nest `limit` deep, 'text' when a string
 * (a value or an object key) is unstorable (`isUnstorableText`), else null.
 */
function scanBody(value: unknown, limit: number): 'deep' | 'text' | null {
  if (typeof value === 'string') return isUnstorableText(value) ? 'text' : null;
  let found: 'text' | null = null;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= limit) return 'deep';
    if (Array.isArray(node)) {
      for (const child of node) {
        if (typeof child === 'string') {
          if (found === null && isUnstorableText(child)) found = 'text';
        } else if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      }
    } else {
      for (const key in node) {
        if (!Object.hasOwn(node, key)) continue;
        if (found === null && isUnstorableText(key)) found = 'text';
        const child = (node as Record<string, unknown>)[key];
        if (typeof child === 'string') {
          if (found === null && isUnstorableText(child)) found = 'text';
        } else if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      }
    }
  }
  return found;
}

/**
 * The path (`rows[2].outputs.risk`, under `root`) of the first unstorable string of `value` — a value, or
 * an object key (then the path of the object, with the key) — or null when there is none. Iterative.
 */
export function findUnstorableText(value: unknown, root = 'body'): string | null {
  const stack: [unknown, string][] = [[value, root]];
  while (stack.length > 0) {
    const [node, path] = stack.pop()!;
    if (typeof node === 'string') {
      if (isUnstorableText(node)) return path;
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const entries: [string, unknown, boolean][] = Array.isArray(node)
      ? node.map((child, i) => [`${path}[${i}]`, child, false])
      : Object.keys(node).map((key) => [`${path}.${key}`, (node as Record<string, unknown>)[key], true]);
    // pushed in reverse: the first bad string in document order is found first
    for (let i = entries.length - 1; i >= 0; i--) {
      const [childPath, child, isKey] = entries[i];
      const key = childPath.slice(path.length + 1);
      if (isKey && isUnstorableText(key)) return path;
      stack.push([child, childPath]);
    }
  }
  return null;
}

/** The 400 INVALID_CHARACTERS naming the field (`findUnstorableText`'s path). */
export function unstorableTextError(field: string): AppError {
  const message = `'${field}' holds a NUL character or a lone surrogate, which cannot be stored`;
  return AppError.badRequest(CommonErrorCodes.InvalidCharacters, message, [{ field, message }]);
}

/**
 * ValidationPipe that first refuses a body nested past MAX_BODY_DEPTH (400 BODY_TOO_DEEP) or holding a
 * string no database stores (400 INVALID_CHARACTERS naming the field), for every service's validated
 * routes. One walk over the body; the path is only looked for when a bad string was found. Hot routes
 * (served before Fastify's router) do not come through here.
 */
class DepthBoundedValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body') {
      const problem = scanBody(value, MAX_BODY_DEPTH);
      if (problem === 'deep')
        throw AppError.badRequest(
          CommonErrorCodes.BodyTooDeep,
          `Request body nests arrays or objects more than ${MAX_BODY_DEPTH} levels deep`,
        );
      if (problem === 'text') throw unstorableTextError(findUnstorableText(value) ?? 'body');
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
