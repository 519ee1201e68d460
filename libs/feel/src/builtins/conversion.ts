/** Conversion built-ins: `date`, `time`, `date and time`, `duration`, `years and months duration`, `number`, `string`, `range`. */
import {
  makeDate,
  makeTime,
  monthsBetween,
  parseDate,
  parseDateTime,
  parseDuration,
  parseTime,
} from '../temporal';
import {
  Decimal,
  DaysTimeDuration,
  FeelDate,
  FeelDateTime,
  FeelTime,
  YearsMonthsDuration,
  isContext,
  isNumber,
  numToString,
  valueToString,
} from '../values';
import { isStr, num, int, isDate, bad, out } from './arguments';
import { type V, sig, type DefineBuiltin } from './builtin-function';
import { parseRangeLiteral } from './range-literal';

export function defineConversionBuiltins(def: DefineBuiltin): void {
  const date = def(
    'date',
    sig(['from'], (from) => {
      if (isStr(from)) return parseDate(from) ?? bad('date', `invalid date '${from}'`);
      if (from instanceof FeelDateTime) return from.date;
      if (isDate(from)) return from;
      return bad('date');
    }),
    sig(['year', 'month', 'day'], (y, m, d) => {
      const yy = int(y),
        mm = int(m),
        dd = int(d);
      if (yy === null || mm === null || dd === null) return bad('date');
      return makeDate(yy, mm, dd) ?? bad('date', 'invalid date');
    }),
  );

  const dateAndTime = def(
    'date and time',
    sig(['from'], (from) => {
      if (isStr(from)) return parseDateTime(from) ?? bad('date and time', `invalid date and time '${from}'`);
      if (from instanceof FeelDateTime) return from;
      if (isDate(from)) return new FeelDateTime(from, new FeelTime(0, 0, 0, 0, 0, null));
      return bad('date and time');
    }),
    sig(['date', 'time'], (d, t) => {
      if (!(d instanceof FeelDate || d instanceof FeelDateTime) || !(t instanceof FeelTime))
        return bad('date and time');
      return new FeelDateTime(d instanceof FeelDateTime ? d.date : d, t);
    }),
  );

  const time = def(
    'time',
    sig(['from'], (from) => {
      if (isStr(from)) return parseTime(from) ?? bad('time', `invalid time '${from}'`);
      if (from instanceof FeelDateTime) return from.time;
      if (from instanceof FeelTime) return from;
      if (isDate(from)) return new FeelTime(0, 0, 0, 0, 0, null);
      return bad('time');
    }),
    sig(
      ['hour', 'minute', 'second', 'offset'],
      (h, m, s, off) => {
        const hh = int(h),
          mm = int(m),
          ss = num(s);
        if (hh === null || mm === null || !ss) return bad('time');
        let offset: number | null = null;
        if (off !== undefined && off !== null) {
          if (!(off instanceof DaysTimeDuration))
            return bad('time', 'offset must be a days and time duration');
          offset = off.seconds.toNumber();
        }
        const whole = ss.floor();
        const nanos = ss.minus(whole).times(1e9).round().toNumber();
        return makeTime(hh, mm, whole.toNumber(), nanos, offset, null) ?? bad('time', 'invalid time');
      },
      3,
    ),
  );

  def(
    'number',
    sig(
      ['from', 'grouping separator', 'decimal separator'],
      (from, g, d) => {
        if (!isStr(from)) return bad('number');
        if (g !== undefined && g !== null && ![' ', ',', '.'].includes(g as string))
          return bad('number', 'invalid grouping separator');
        if (d !== undefined && d !== null && !['.', ','].includes(d as string))
          return bad('number', 'invalid decimal separator');
        if (g != null && g === d) return bad('number', 'separators must differ');
        let s = from;
        if (g != null) s = s.split(g as string).join('');
        if (d != null) s = s.split(d as string).join('.');
        if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(s))
          return bad('number', `cannot convert '${from}'`);
        return out(new Decimal(s));
      },
      1,
    ),
  );

  def(
    'string',
    sig(['from'], (from) => {
      if (from === null || from === undefined) return null;
      if (isStr(from)) return from;
      if (isNumber(from)) return numToString(from);
      if (Array.isArray(from) || isContext(from)) return valueToString(from);
      return String(from);
    }),
  );

  const duration = def(
    'duration',
    sig(['from'], (from) => {
      if (!isStr(from)) return bad('duration');
      return parseDuration(from) ?? bad('duration', `invalid duration '${from}'`);
    }),
  );

  def(
    'years and months duration',
    sig(['from', 'to'], (from, to) => {
      const okT = (x: V) => x instanceof FeelDate || x instanceof FeelDateTime;
      if (!okT(from) || !okT(to)) return bad('years and months duration');
      return new YearsMonthsDuration(monthsBetween(from, to));
    }),
  );

  const endpointFunctions = { date, time, 'date and time': dateAndTime, duration };
  def(
    'range',
    sig(['from'], (from) => {
      if (!isStr(from)) return bad('range');
      return parseRangeLiteral(from, endpointFunctions);
    }),
  );
}
