import { Liquid, type Template } from 'liquidjs';
import { TemplateError } from './errors';
import { DEFAULT_TEMPLATE_LIMITS, type TemplateLimits } from './limits';

/** Tags that read other templates (from disk or elsewhere): refused when a template is parsed. */
const FILE_TAGS = ['include', 'render', 'layout'];

/**
 * A Liquid engine with strict limits and no file access: templates are parsed from strings only,
 * `include` / `render` / `layout` are refused at parse time, lookups go to an empty in-memory map,
 * unknown filters are parse errors, only own properties of the scope are read, and every render is
 * bounded in time (`renderLimit`) and allocations (`memoryLimit`).
 */
export function createLiquidEngine(limits: TemplateLimits): Liquid {
  const liquid = new Liquid({
    templates: {},
    relativeReference: false,
    dynamicPartials: false,
    cache: false,
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    parseLimit: limits.maxSourceLength,
    renderLimit: limits.renderTimeMs,
    memoryLimit: limits.memoryBytes,
  });
  for (const tag of FILE_TAGS)
    liquid.registerTag(tag, {
      parse() {
        throw new Error(`the '${tag}' tag is not allowed (templates cannot read other templates)`);
      },
      render() {
        return '';
      },
    });
  return liquid;
}

/** Parses a template (at compile time), mapping liquidjs errors to `TEMPLATE_SYNTAX` / `TEMPLATE_LIMIT`. */
export function parseTemplate(liquid: Liquid, source: string, limits: TemplateLimits): Template[] {
  if (typeof source !== 'string') throw new TemplateError('TEMPLATE_SYNTAX', 'template must be a string');
  if (source.length > limits.maxSourceLength)
    throw new TemplateError(
      'TEMPLATE_LIMIT',
      `template is ${source.length} characters long (limit ${limits.maxSourceLength})`,
    );
  try {
    return liquid.parse(source);
  } catch (error) {
    throw toTemplateError(error, 'TEMPLATE_SYNTAX');
  }
}

/** Maps an error thrown by liquidjs: limit breaches become `TEMPLATE_LIMIT`, others `fallback`. */
export function toTemplateError(
  error: unknown,
  fallback: 'TEMPLATE_SYNTAX' | 'TEMPLATE_RENDER',
): TemplateError {
  if (error instanceof TemplateError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new TemplateError(/limit exceeded/.test(message) ? 'TEMPLATE_LIMIT' : fallback, message);
}

let defaultEngine: Liquid | null = null;

/** The shared engine with the default limits (created on first use). */
export function defaultLiquidEngine(): Liquid {
  return (defaultEngine ??= createLiquidEngine(DEFAULT_TEMPLATE_LIMITS));
}
