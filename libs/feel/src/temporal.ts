/** Parsing and arithmetic of FEEL temporal values. */
import {
  Decimal,
  DaysTimeDuration,
  FeelDate,
  FeelDateTime,
  FeelTime,
  YearsMonthsDuration,
  daysInMonth,
  isValidZone,
  zoneOffsetForLocal,
  zoneOffsetAt,
} from './values';

type FeelValueT = FeelDate | FeelDateTime | null | undefined | unknown;
const DATE_RE = /^(-?)(\d{4,9})-(\d{2})-(\d{2})$/;
const TIME_RE = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:(Z|z)|([+-])(\d{2}):(\d{2})(?::(\d{2}))?|@(.+))?$/;

export function makeDate(y: number, m: number, d: number): FeelDate | null {
  if (!Number.isInteger(y) || !Number.isInteger(m) || !Number.isInteger(d)) return null;
  if (y < -999999999 || y > 999999999 || m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return null;
  return new FeelDate(y, m, d);
}

export function parseDate(s: string): FeelDate | null {
  const m = DATE_RE.exec(s);
  if (!m) return null;
  if (m[2].length > 4 && m[2][0] === '0') return null;
  const y = Number(m[2]) * (m[1] ? -1 : 1);
  return makeDate(y, Number(m[3]), Number(m[4]));
}

export function makeTime(
  h: number,
  mi: number,
  s: number,
  nanos: number,
  offset: number | null,
  zone: string | null,
): FeelTime | null {
  if (h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59) return null;
  if (!Number.isInteger(h) || !Number.isInteger(mi) || !Number.isInteger(s)) return null;
  if (offset !== null && (offset < -18 * 3600 || offset > 18 * 3600)) return null;
  return new FeelTime(h, mi, s, nanos, offset, zone);
}

export function parseTime(s: string): FeelTime | null {
  const m = TIME_RE.exec(s);
  if (!m) return null;
  let h = Number(m[1]);
  const mi = Number(m[2]);
  const sec = Number(m[3]);
  const nanos = m[4] ? Number(m[4].slice(0, 9).padEnd(9, '0')) : 0;
  let offset: number | null = null;
  let zone: string | null = null;
  if (m[5]) offset = 0;
  else if (m[6]) {
    const oh = Number(m[7]);
    const om = Number(m[8]);
    if (oh > 18 || om > 59) return null;
    offset = (m[6] === '-' ? -1 : 1) * (oh * 3600 + om * 60 + (m[9] ? Number(m[9]) : 0));
  } else if (m[10]) {
    zone = m[10];
    if (!isValidZone(zone)) return null;
  }
  if (h === 24 && mi === 0 && sec === 0 && nanos === 0) h = 0;
  return makeTime(h, mi, sec, nanos, offset, zone);
}

export function parseDateTime(s: string): FeelDateTime | null {
  const i = s.indexOf('T');
  if (i < 0) {
    const d = parseDate(s);
    return d ? new FeelDateTime(d, new FeelTime(0, 0, 0, 0, null, null)) : null;
  }
  const d = parseDate(s.slice(0, i));
  const tstr = s.slice(i + 1);
  if (/^24:00:00(\.0+)?/.test(tstr) && d) {
    const t = parseTime('00' + tstr.slice(2));
    if (!t) return null;
    return new FeelDateTime(FeelDate.fromEpochDay(d.epochDay + 1), t);
  }
  const t = parseTime(tstr);
  if (!d || !t) return null;
  return new FeelDateTime(d, t);
}

const DUR_RE = /^(-)?P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d*)?)S)?)?$/;

export function parseDuration(s: string): DaysTimeDuration | YearsMonthsDuration | null {
  const m = DUR_RE.exec(s);
  if (!m || s.endsWith('T') || /^-?P$/.test(s)) return null;
  const neg = m[1] ? -1 : 1;
  const hasYM = m[2] !== undefined || m[3] !== undefined;
  const hasDT = m[4] !== undefined || m[5] !== undefined || m[6] !== undefined || m[7] !== undefined;
  if (hasYM && !hasDT)
    return new YearsMonthsDuration(neg * (Number(m[2] ?? 0) * 12 + Number(m[3] ?? 0)) || 0);
  if (hasYM && hasDT) {
    // mixed durations: only valid when the year/month part is zero
    if (Number(m[2] ?? 0) !== 0 || Number(m[3] ?? 0) !== 0) return null;
  }
  let secs = new Decimal(m[4] ?? 0)
    .times(86400)
    .plus(new Decimal(m[5] ?? 0).times(3600))
    .plus(new Decimal(m[6] ?? 0).times(60))
    .plus(new Decimal(m[7] ?? 0));
  if (neg < 0) secs = secs.neg();
  return new DaysTimeDuration(secs);
}

// ---------------------------------------------------------------- arithmetic

export function addMonthsToDate(d: FeelDate, months: number): FeelDate | null {
  const total = d.year * 12 + (d.month - 1) + months;
  const y = Math.floor(total / 12);
  const m = total - y * 12 + 1;
  const day = Math.min(d.day, daysInMonth(y, m));
  return makeDate(y, m, day);
}

export function dateTimeFromLocal(localSec: Decimal, tmpl: FeelTime): FeelDateTime {
  const whole = localSec.floor();
  const nanos = localSec.minus(whole).times(1e9).round().toNumber();
  const w = whole.toNumber();
  const days = Math.floor(w / 86400);
  const sod = w - days * 86400;
  const date = FeelDate.fromEpochDay(days);
  const time = new FeelTime(
    Math.floor(sod / 3600),
    Math.floor((sod % 3600) / 60),
    sod % 60,
    nanos,
    tmpl.offset,
    tmpl.zone,
  );
  return new FeelDateTime(date, time);
}

export function localSeconds(dt: FeelDateTime): Decimal {
  return new Decimal(dt.date.epochDay)
    .times(86400)
    .plus(dt.time.secondOfDay)
    .plus(new Decimal(dt.time.nanos).div(1e9));
}

export function addDurationToDateTime(
  dt: FeelDateTime,
  dur: DaysTimeDuration | YearsMonthsDuration,
  sign: number,
): FeelDateTime | null {
  if (dur instanceof YearsMonthsDuration) {
    const d = addMonthsToDate(dt.date, sign * dur.months);
    return d ? new FeelDateTime(d, dt.time) : null;
  }
  if (dt.time.zone) {
    // zoned: add on the instant line, then convert back to the zone's wall clock
    const off = dt.effectiveOffset() ?? 0;
    const inst = localSeconds(dt)
      .minus(off)
      .plus(sign > 0 ? dur.seconds : dur.seconds.neg());
    const newOff = zoneOffsetAt(dt.time.zone, inst.floor().toNumber());
    return dateTimeFromLocal(inst.plus(newOff), dt.time);
  }
  return dateTimeFromLocal(localSeconds(dt).plus(sign > 0 ? dur.seconds : dur.seconds.neg()), dt.time);
}

export function addDurationToTime(t: FeelTime, dur: DaysTimeDuration, sign: number): FeelTime {
  let s = new Decimal(t.secondOfDay)
    .plus(new Decimal(t.nanos).div(1e9))
    .plus(sign > 0 ? dur.seconds : dur.seconds.neg());
  s = s.mod(86400);
  if (s.isNegative()) s = s.plus(86400);
  const whole = s.floor().toNumber();
  const nanos = s.minus(whole).times(1e9).round().toNumber();
  return new FeelTime(
    Math.floor(whole / 3600),
    Math.floor((whole % 3600) / 60),
    whole % 60,
    nanos,
    t.offset,
    t.zone,
  );
}

export function subtractDateTimes(a: FeelDateTime, b: FeelDateTime): DaysTimeDuration | null {
  if (a.hasZone() !== b.hasZone()) return null;
  const oa = a.effectiveOffset() ?? 0;
  const ob = b.effectiveOffset() ?? 0;
  return new DaysTimeDuration(localSeconds(a).minus(oa).minus(localSeconds(b).minus(ob)));
}

export function subtractTimes(a: FeelTime, b: FeelTime): DaysTimeDuration | null {
  const oa = a.effectiveOffset();
  const ob = b.effectiveOffset();
  if ((oa === null) !== (ob === null)) return null;
  const sa = new Decimal(a.secondOfDay - (oa ?? 0)).plus(new Decimal(a.nanos).div(1e9));
  const sb = new Decimal(b.secondOfDay - (ob ?? 0)).plus(new Decimal(b.nanos).div(1e9));
  return new DaysTimeDuration(sa.minus(sb));
}

export function monthsBetween(from: FeelValueT, to: FeelValueT): number {
  const a =
    from instanceof FeelDateTime
      ? from
      : new FeelDateTime(from as FeelDate, new FeelTime(0, 0, 0, 0, null, null));
  const b =
    to instanceof FeelDateTime ? to : new FeelDateTime(to as FeelDate, new FeelTime(0, 0, 0, 0, null, null));
  let months = (b.date.year - a.date.year) * 12 + (b.date.month - a.date.month);
  // compare remaining day/time part
  const restA = a.date.day;
  const restB = b.date.day;
  if (months > 0 && restB < restA) months--;
  else if (months < 0 && restB > restA) months++;
  return months;
}

export function toDateTime(v: FeelDate | FeelDateTime): FeelDateTime {
  return v instanceof FeelDateTime ? v : new FeelDateTime(v, new FeelTime(0, 0, 0, 0, 0, null));
}

export function nowDateTime(): FeelDateTime {
  const ms = Date.now();
  const sec = Math.floor(ms / 1000);
  const days = Math.floor(sec / 86400);
  const sod = sec - days * 86400;
  return new FeelDateTime(
    FeelDate.fromEpochDay(days),
    new FeelTime(Math.floor(sod / 3600), Math.floor((sod % 3600) / 60), sod % 60, (ms % 1000) * 1e6, 0, null),
  );
}

export function dayOfWeek(d: FeelDate): number {
  // 0 = Monday
  return (((d.epochDay + 3) % 7) + 7) % 7;
}
export function isoWeek(d: FeelDate): number {
  const dow = dayOfWeek(d);
  const thursday = d.epochDay - dow + 3;
  const ty = FeelDate.fromEpochDay(thursday).year;
  const jan1 = new FeelDate(ty, 1, 1).epochDay;
  return Math.floor((thursday - jan1) / 7) + 1;
}

export { zoneOffsetForLocal };
