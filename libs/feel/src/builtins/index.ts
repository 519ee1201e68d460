/** The FEEL built-in function library (DMN 1.5): the registry the category modules fill. */
import { BuiltinFunction, type DefineBuiltin, type Sig } from './builtin-function';
import { defineBooleanBuiltins } from './boolean';
import { defineContextBuiltins } from './context';
import { defineConversionBuiltins } from './conversion';
import { defineListBuiltins } from './list';
import { defineNumericBuiltins } from './numeric';
import { defineRangeBuiltins } from './range';
import { defineStringBuiltins } from './string';
import { defineTemporalBuiltins } from './temporal';

export { BuiltinFunction } from './builtin-function';

/** name -> built-in function; filled once when the module loads, read-only afterwards */
export const builtins: ReadonlyMap<string, BuiltinFunction> = (() => {
  const table = new Map<string, BuiltinFunction>();
  const def: DefineBuiltin = (name: string, ...sigs: Sig[]) => {
    const f = new BuiltinFunction(name, sigs);
    table.set(name, f);
    return f;
  };
  defineConversionBuiltins(def);
  defineBooleanBuiltins(def);
  defineStringBuiltins(def);
  defineListBuiltins(def);
  defineNumericBuiltins(def);
  defineTemporalBuiltins(def);
  defineContextBuiltins(def);
  defineRangeBuiltins(def);
  return table;
})();

/** Signature text for autocomplete. */
export function builtinSignatures(): { name: string; signature: string }[] {
  const r: { name: string; signature: string }[] = [];
  for (const [name, f] of builtins)
    for (const s of f.sigs)
      r.push({ name, signature: `${name}(${s.params.join(', ')}${s.variadic ? ', …' : ''})` });
  return r;
}
