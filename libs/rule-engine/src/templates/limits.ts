/** Limits of the template engine (one shared Liquid instance per set of limits). */
export interface TemplateLimits {
  /** Longest template source accepted, in characters (liquidjs `parseLimit`). */
  maxSourceLength: number;
  /** Longest time one render may take, in milliseconds (liquidjs `renderLimit`). */
  renderTimeMs: number;
  /** Allocation budget of one render (liquidjs `memoryLimit`: strings and arrays built by filters and tags). */
  memoryBytes: number;
  /** Longest rendered output accepted, in characters. */
  maxOutputLength: number;
}

export const DEFAULT_TEMPLATE_LIMITS: Readonly<TemplateLimits> = Object.freeze({
  maxSourceLength: 100_000,
  renderTimeMs: 50,
  memoryBytes: 16 * 1024 * 1024,
  maxOutputLength: 1_000_000,
});
