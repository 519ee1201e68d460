/** The scope chain compiled FEEL reads names from: the caller's objects, linked, never copied. */
import { hasOwn, type FeelValue } from './values';

export class Scope {
  constructor(
    readonly vars: Record<string, unknown> | null,
    readonly parent: Scope | null,
  ) {}
}

/** The value bound to `name` in the nearest scope that has it; `undefined` when none has it. */
export function lookup(s: Scope | null, name: string): FeelValue | undefined {
  for (let c = s; c !== null; c = c.parent) {
    const v = c.vars;
    if (v !== null && hasOwn(v, name)) {
      const x = v[name];
      return x === undefined ? null : (x as FeelValue);
    }
  }
  return undefined;
}
