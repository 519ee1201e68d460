/** Calling a FEEL function value with positional or named arguments. */
import { BuiltinFunction } from './builtins';
import { currentEvaluation, enterCall, runEvaluation, step, warn } from './evaluation-context';
import { FeelFunction, hasOwn, type FeelValue } from './values';

export function callFunction(f: FeelFunction, args: FeelValue[]): FeelValue {
  if (f instanceof BuiltinFunction) return f.call(args);
  if (args.length > f.params.length && !f.options.variadic)
    return warn(`too many arguments for ${f.name ?? 'function'}`);
  step();
  const ctx = enterCall();
  try {
    return f.invoke(args);
  } finally {
    ctx.callDepth--;
  }
}

export function callNamed(f: FeelFunction, named: Record<string, FeelValue>): FeelValue {
  if (f instanceof BuiltinFunction) return f.callNamed(named);
  const args: FeelValue[] = [];
  for (const k of Object.keys(named))
    if (!f.params.some((p) => p.name === k)) return warn(`unknown parameter '${k}'`);
  for (const p of f.params) args.push(hasOwn(named, p.name) ? named[p.name] : null);
  return callFunction(f, args);
}

/**
 * `callFunction` for hosts (the DMN evaluator): part of the evaluation in progress, or, outside one, an
 * evaluation of its own whose warnings are dropped.
 */
export function callFeelFunction(f: FeelFunction, args: FeelValue[]): FeelValue {
  return currentEvaluation() ? callFunction(f, args) : runEvaluation(null, () => callFunction(f, args));
}
/** `callNamed` for hosts, as `callFeelFunction`. */
export function callFeelFunctionNamed(f: FeelFunction, named: Record<string, FeelValue>): FeelValue {
  return currentEvaluation() ? callNamed(f, named) : runEvaluation(null, () => callNamed(f, named));
}
