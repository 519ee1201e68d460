/** Temporal built-ins: `day of year`, `day of week`, `month of year`, `week of year`, `now`, `today`. */
import { nowDateTime, dayOfWeek, isoWeek } from '../temporal';
import { FeelDate, FeelDateTime } from '../values';
import { bad } from './arguments';
import { type V, sig, type DefineBuiltin } from './builtin-function';

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

function dateOf(v: V): FeelDate | null {
  if (v instanceof FeelDateTime) return v.date;
  if (v instanceof FeelDate) return v;
  return null;
}

export function defineTemporalBuiltins(def: DefineBuiltin): void {
  def(
    'day of year',
    sig(['date'], (v) => {
      const d = dateOf(v);
      return d ? d.epochDay - new FeelDate(d.year, 1, 1).epochDay + 1 : bad('day of year');
    }),
  );
  def(
    'day of week',
    sig(['date'], (v) => {
      const d = dateOf(v);
      return d ? DAYS[dayOfWeek(d)] : bad('day of week');
    }),
  );
  def(
    'month of year',
    sig(['date'], (v) => {
      const d = dateOf(v);
      return d ? MONTHS[d.month - 1] : bad('month of year');
    }),
  );
  def(
    'week of year',
    sig(['date'], (v) => {
      const d = dateOf(v);
      return d ? isoWeek(d) : bad('week of year');
    }),
  );
  def(
    'now',
    sig([], () => nowDateTime()),
  );
  def(
    'today',
    sig([], () => nowDateTime().date),
  );
}
