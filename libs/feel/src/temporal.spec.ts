import { fv } from './test-helpers';

describe('temporal values', () => {
  it.each([
    ['date("2020-02-28") + duration("P1D")', '2020-02-29'],
    ['date("2021-01-31") + duration("P1M")', '2021-02-28'],
    ['date("2020-03-01") - date("2020-02-01")', 'P29D'],
    ['date and time("2020-01-01T10:00:00") + duration("PT36H")', '2020-01-02T22:00:00'],
    ['date and time("2020-01-01T10:00:00Z") - date and time("2020-01-01T11:30:00+02:00")', 'PT30M'],
    ['date and time("2020-01-01T10:00:00") - date and time("2020-01-01T10:00:00Z")', 'null'],
    ['time("10:00:00") + duration("PT15H")', '01:00:00'],
    ['time("10:00:00") - time("09:30:15")', 'PT29M45S'],
    ['duration("P1DT2H") * 2', 'P2DT4H'],
    ['duration("P2D") / duration("PT12H")', '4'],
    ['duration("P1Y") + duration("P13M")', 'P2Y1M'],
    ['years and months duration(date("2011-12-22"), date("2013-08-24"))', 'P1Y8M'],
    ['@"2019-03-31" instance of date', 'true'],
    ['@"10:30:00@Europe/Paris".timezone', '"Europe/Paris"'],
    ['date and time("2018-12-08T10:30:11@Europe/Paris").time offset', 'PT1H'],
    ['date and time("2018-07-08T10:30:11@Europe/Paris").time offset', 'PT2H'],
    ['date("2020-03-15").weekday', '7'],
    ['date and time("2020-03-15T10:11:12.5").second', '12'],
    ['duration("P2DT3H4M5S").hours', '3'],
    ['duration("P2Y3M").months', '3'],
    ['day of week(date("2020-03-15"))', '"Sunday"'],
    ['month of year(date("2020-03-15"))', '"March"'],
    ['week of year(date("2021-01-03"))', '53'],
    ['week of year(date("2021-01-04"))', '1'],
    ['day of year(date("2020-12-31"))', '366'],
    ['date("2020-02-30")', 'null'],
    ['date(2020, 2, 29)', '2020-02-29'],
    ['date("-0001-01-01") < date("0001-01-01")', 'true'],
    ['date("999999999-12-31")', '999999999-12-31'],
    ['time(10, 20, 30.5, duration("PT1H"))', '10:20:30.5+01:00'],
    ['time("24:00:00")', '00:00:00'],
    ['date and time(date("2020-01-01"), time("10:00:00Z"))', '2020-01-01T10:00:00Z'],
    ['date and time("2020-01-01T10:00:00") < date and time("2020-01-01T10:00:01")', 'true'],
    ['time("10:00:00+01:00") = time("09:00:00Z")', 'true'],
    ['duration("PT0.S")', 'PT0S'],
    ['duration("P1Y2D")', 'null'],
    ['for d in @"2021-01-30"..@"2021-02-02" return day of year(d)', '[30, 31, 32, 33]'],
    ['date("2020-01-05") in [date("2020-01-01")..date("2020-01-31")]', 'true'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
  it('now() and today() return current values', () => {
    expect(fv('now() instance of date and time')).toBe('true');
    expect(fv('today() instance of date')).toBe('true');
    expect(fv('today() = date(now())')).toBe('true');
  });
});
