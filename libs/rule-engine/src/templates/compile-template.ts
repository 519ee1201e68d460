import type { Liquid, Template } from 'liquidjs';
import { TemplateError } from './errors';
import { createLiquidEngine, defaultLiquidEngine, parseTemplate, toTemplateError } from './liquid-engine';
import { DEFAULT_TEMPLATE_LIMITS, type TemplateLimits } from './limits';
import { compileSimpleTemplate, type SimpleTemplate } from './simple-template';

/** A compiled template: renders a scope (plain JSON facts) to a string. Throws `TemplateError`. */
export type CompiledTemplate = (scope: Record<string, unknown>) => string;

export interface CompileTemplateOptions {
  /** Overrides of the default limits (a dedicated engine is created for non-default limits). */
  limits?: Partial<TemplateLimits>;
}

/**
 * Compiles a Liquid template once (parsed by liquidjs at compile time; syntax errors, unknown filters,
 * file tags and oversize sources throw `TemplateError` here). Rendering is synchronous (`renderSync`)
 * and bounded by the limits; a template that is only text and `{{ dotted.path }}` outputs renders
 * through a concatenation fast path with identical output.
 */
export function compileTemplate(source: string, options: CompileTemplateOptions = {}): CompiledTemplate {
  const limits = options.limits ? { ...DEFAULT_TEMPLATE_LIMITS, ...options.limits } : DEFAULT_TEMPLATE_LIMITS;
  const liquid = options.limits ? createLiquidEngine(limits) : defaultLiquidEngine();
  const parsed = parseTemplate(liquid, source, limits);
  const simple = compileSimpleTemplate(source);
  const maxOutput = limits.maxOutputLength;
  return (scope) => {
    const out = renderWith(simple, liquid, parsed, scope);
    if (out.length > maxOutput)
      throw new TemplateError(
        'TEMPLATE_LIMIT',
        `rendered output is ${out.length} characters long (limit ${maxOutput})`,
      );
    return out;
  };
}

function renderWith(
  simple: SimpleTemplate | null,
  liquid: Liquid,
  parsed: Template[],
  scope: Record<string, unknown>,
): string {
  if (simple !== null) {
    const fast = simple.render(scope);
    if (fast !== undefined) return fast;
  }
  try {
    return String(liquid.renderSync(parsed, scope));
  } catch (error) {
    throw toTemplateError(error, 'TEMPLATE_RENDER');
  }
}
