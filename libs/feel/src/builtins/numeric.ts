/** Numeric built-ins (rounding, `abs`, `modulo`, `sqrt`, `log`, `exp`, `odd`, `even`). */
import { Decimal, DaysTimeDuration, YearsMonthsDuration, isNumber, toDecimal } from '../values';
import { num, bad, out } from './arguments';
import { sig, type DefineBuiltin } from './builtin-function';

function rounder(name: string, mode: number, scaleOptional: boolean) {
  return sig(
    ['n', 'scale'],
    (n, scale) => {
      const d = num(n);
      if (!d) return bad(name);
      let s = 0;
      if (scale === null) return bad(name, 'scale is null');
      if (scale !== undefined) {
        const scd = num(scale);
        if (!scd) return bad(name, 'invalid scale');
        const sc = scd.trunc().toNumber();
        if (sc < -6111 || sc > 6176) return bad(name, 'invalid scale');
        s = sc;
      } else if (!scaleOptional) return bad(name, 'scale required');
      if (s >= 0) return out(d.toDecimalPlaces(s, mode as 0));
      const q = new Decimal(10).pow(-s);
      return out(
        d
          .div(q)
          .toDecimalPlaces(0, mode as 0)
          .times(q),
      );
    },
    scaleOptional ? 1 : 2,
  );
}

export function defineNumericBuiltins(def: DefineBuiltin): void {
  def('decimal', rounder('decimal', Decimal.ROUND_HALF_EVEN, false));
  def('floor', rounder('floor', Decimal.ROUND_FLOOR, true));
  def('ceiling', rounder('ceiling', Decimal.ROUND_CEIL, true));
  def('round up', rounder('round up', Decimal.ROUND_UP, false));
  def('round down', rounder('round down', Decimal.ROUND_DOWN, false));
  def('round half up', rounder('round half up', Decimal.ROUND_HALF_UP, false));
  def('round half down', rounder('round half down', Decimal.ROUND_HALF_DOWN, false));
  def(
    'abs',
    sig(['n'], (n) => {
      if (isNumber(n)) return out(toDecimal(n).abs());
      if (n instanceof DaysTimeDuration) return new DaysTimeDuration(n.seconds.abs());
      if (n instanceof YearsMonthsDuration) return new YearsMonthsDuration(Math.abs(n.months));
      return bad('abs');
    }),
  );
  def(
    'modulo',
    sig(['dividend', 'divisor'], (a, b) => {
      const x = num(a),
        y = num(b);
      if (!x || !y) return bad('modulo');
      if (y.isZero()) return bad('modulo', 'division by zero');
      return out(x.minus(y.times(x.div(y).floor())));
    }),
  );
  def(
    'sqrt',
    sig(['number'], (n) => {
      const d = num(n);
      if (!d || d.isNegative()) return bad('sqrt');
      return out(d.sqrt());
    }),
  );
  def(
    'log',
    sig(['number'], (n) => {
      const d = num(n);
      if (!d || d.lte(0)) return bad('log');
      return out(d.ln());
    }),
  );
  def(
    'exp',
    sig(['number'], (n) => {
      const d = num(n);
      if (!d) return bad('exp');
      return out(d.exp());
    }),
  );
  def(
    'odd',
    sig(['number'], (n) => {
      const d = num(n);
      if (!d || !d.isInteger()) return bad('odd');
      return !d.mod(2).isZero();
    }),
  );
  def(
    'even',
    sig(['number'], (n) => {
      const d = num(n);
      if (!d || !d.isInteger()) return bad('even');
      return d.mod(2).isZero();
    }),
  );
}
