/** Boolean built-ins: `not`, `is`. */
import { FeelDate, FeelDateTime, FeelTime, feelEquals, typeName } from '../values';
import { sig, type DefineBuiltin } from './builtin-function';

export function defineBooleanBuiltins(def: DefineBuiltin): void {
  def(
    'not',
    sig(['negand'], (b) => (typeof b === 'boolean' ? !b : null)),
  );

  def(
    'is',
    sig(['value1', 'value2'], (a, b) => {
      if (a == null || b == null) return a == b;
      if (typeName(a) !== typeName(b)) return false;
      if (a instanceof FeelTime || a instanceof FeelDate || a instanceof FeelDateTime)
        return String(a) === String(b);
      return feelEquals(a, b) === true;
    }),
  );
}
