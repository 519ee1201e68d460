/**
 * Path expressions `value.name`: context entries, the properties of dates, times, date-times, durations
 * and ranges; over a list, the property of each element.
 */
import { warn } from './evaluation-context';
import { dayOfWeek } from './temporal';
import {
  Decimal,
  DaysTimeDuration,
  FeelDate,
  FeelDateTime,
  FeelRange,
  FeelTime,
  YearsMonthsDuration,
  hasOwn,
  isContext,
  typeName,
  type FeelValue,
} from './values';

/** ISO weekday, 1 = Monday */
const WEEKDAY_ISO = (d: FeelDate) => dayOfWeek(d) + 1;

export function getProperty(v: FeelValue, name: string): FeelValue {
  if (v === null) return null;
  if (isContext(v)) return hasOwn(v, name) ? (v[name] ?? null) : null;
  if (Array.isArray(v)) return v.map((e) => getProperty(e, name));
  if (v instanceof FeelDateTime) {
    switch (name) {
      case 'year':
      case 'month':
      case 'day':
        return v.date[name];
      case 'weekday':
        return WEEKDAY_ISO(v.date);
      case 'hour':
      case 'minute':
      case 'second':
        return v.time[name];
      case 'time offset': {
        const o = v.time.offset ?? (v.time.zone ? v.effectiveOffset() : null);
        return o === null ? null : new DaysTimeDuration(new Decimal(o));
      }
      case 'timezone':
        return v.time.zone;
    }
    return warn(`no property '${name}' on date and time`);
  }
  if (v instanceof FeelDate) {
    switch (name) {
      case 'year':
      case 'month':
      case 'day':
        return v[name];
      case 'weekday':
        return WEEKDAY_ISO(v);
    }
    return warn(`no property '${name}' on date`);
  }
  if (v instanceof FeelTime) {
    switch (name) {
      case 'hour':
      case 'minute':
      case 'second':
        return v[name];
      case 'time offset':
        return v.offset === null ? null : new DaysTimeDuration(new Decimal(v.offset));
      case 'timezone':
        return v.zone;
    }
    return warn(`no property '${name}' on time`);
  }
  if (v instanceof DaysTimeDuration) {
    const secs = v.seconds;
    const sign = secs.isNegative() ? -1 : 1;
    const a = secs.abs().floor().toNumber();
    switch (name) {
      case 'days':
        return sign * Math.floor(a / 86400) || 0;
      case 'hours':
        return sign * Math.floor((a % 86400) / 3600) || 0;
      case 'minutes':
        return sign * Math.floor((a % 3600) / 60) || 0;
      case 'seconds':
        return sign * (a % 60) || 0;
    }
    return warn(`no property '${name}' on duration`);
  }
  if (v instanceof YearsMonthsDuration) {
    const sign = v.months < 0 ? -1 : 1;
    const a = Math.abs(v.months);
    if (name === 'years') return sign * Math.floor(a / 12) || 0;
    if (name === 'months') return sign * (a % 12) || 0;
    return warn(`no property '${name}' on duration`);
  }
  if (v instanceof FeelRange) {
    switch (name) {
      case 'start':
        return v.start ?? null;
      case 'end':
        return v.end ?? null;
      case 'start included':
        return v.startIncluded;
      case 'end included':
        return v.endIncluded;
    }
  }
  return warn(`no property '${name}' on ${typeName(v)}`);
}
