import { AppError } from '../errors/app-error';

export interface PageRequest {
  page: number;
  pageSize: number;
  offset: number;
}

/**
 * Reads 1-based `page`/`pageSize` query values with a default and a maximum; anything that is not a
 * positive integer is a 400 naming the parameter (a larger page size than allowed is refused too).
 */
export function readPage(
  query: Record<string, unknown>,
  limits: { defaultSize: number; maxSize: number; pageParam?: string; sizeParam?: string },
): PageRequest {
  const pageParam = limits.pageParam ?? 'page';
  const sizeParam = limits.sizeParam ?? 'pageSize';
  const page = positiveInt(query[pageParam], pageParam, 1);
  const pageSize = positiveInt(query[sizeParam], sizeParam, limits.defaultSize);
  if (pageSize > limits.maxSize) {
    throw AppError.validation([
      { field: sizeParam, message: `${sizeParam} must not exceed ${limits.maxSize}` },
    ]);
  }
  return { page, pageSize, offset: (page - 1) * pageSize };
}

function positiveInt(raw: unknown, name: string, fallback: number): number {
  if (raw === undefined || raw === null || raw === '') return fallback;
  const text = String(raw).trim();
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) {
    throw AppError.validation([{ field: name, message: `${name} must be a positive integer` }]);
  }
  return Number(text);
}
