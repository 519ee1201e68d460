import { compileDecisionTable } from './compile';
import { factTypingOf, withTypedFacts } from './fact-types';
import { compileUnaryTests } from '@arbiter/feel';
import { DecisionTableDefinition } from './types';

const compare = (type: string, sameCell = 'Complex.aDate'): DecisionTableDefinition => ({
  name: 'compare',
  hitPolicy: 'Unique',
  inputColumns: [{ name: 'Another', type }],
  outputColumns: [{ name: 'o', type: 'string' }],
  rows: [
    { id: 'same', inputConditions: { Another: sameCell }, outputs: { o: 'same' } },
    { id: 'later', inputConditions: { Another: '> Complex.aDate' }, outputs: { o: 'later' } },
    { id: 'earlier', inputConditions: { Another: '< Complex.aDate' }, outputs: { o: 'earlier' } },
  ],
});

describe('facts compared with a temporal column are read as its type', () => {
  it.each([
    ['date', '2024-01-02', '2024-01-02', '2024-01-03', '2024-01-01'],
    ['time', '10:00:00', '10:00:00', '11:00:00', '09:00:00'],
    [
      'date and time',
      '2024-01-02T10:00:00',
      '2024-01-02T10:00:00',
      '2024-01-02T11:00:00',
      '2024-01-01T10:00:00',
    ],
    ['days and time duration', 'P1D', 'PT24H', 'P2D', 'PT1H'],
    ['years and months duration', 'P1Y', 'P12M', 'P1Y1M', 'P11M'],
  ])(
    '%s: a nested fact sent as an ISO string compares with the input',
    (type, fact, same, later, earlier) => {
      const t = compileDecisionTable(compare(type));
      const run = (another: string) => t.evaluate({ Another: another, Complex: { aDate: fact } }).matchedRows;
      expect(run(same)).toEqual(['same']);
      expect(run(later)).toEqual(['later']);
      expect(run(earlier)).toEqual(['earlier']);
    },
  );

  it('types range ends, lists and negations, and leaves the sent facts untouched', () => {
    const t = compileDecisionTable({
      name: 'window',
      hitPolicy: 'Collect',
      inputColumns: [{ name: 'day', type: 'date' }],
      outputColumns: [{ name: 'o' }],
      rows: [
        { id: 'in', inputConditions: { day: '[period.start..period.end]' }, outputs: { o: 'in' } },
        { id: 'holiday', inputConditions: { day: 'holiday, period.end' }, outputs: { o: 'h' } },
        { id: 'working', inputConditions: { day: 'not(holiday)' }, outputs: { o: 'w' } },
      ],
    });
    const facts = {
      day: '2024-03-10',
      period: { start: '2024-03-01', end: '2024-03-31' },
      holiday: '2024-03-10',
    };
    expect(t.evaluate(facts).matchedRows).toEqual(['in', 'holiday']);
    expect(t.evaluate({ ...facts, holiday: '2024-03-11' }).matchedRows).toEqual(['in', 'working']);
    expect(facts.period.start).toBe('2024-03-01'); // the caller's object is not converted in place
  });

  it('compares a string that is not of the type as sent (FEEL null: no match), without an error', () => {
    const t = compileDecisionTable(compare('date'));
    expect(t.evaluate({ Another: '2024-01-02', Complex: { aDate: 'soon' } }).matchedRows).toEqual([]);
    expect(t.evaluate({ Another: '2024-01-02', Complex: 'flat' }).matchedRows).toEqual([]);
    expect(t.evaluate({ Another: '2024-01-02' }).matchedRows).toEqual([]);
  });

  it('a cell reading another temporal column sees its value, not the string sent', () => {
    const t = compileDecisionTable({
      name: 'order',
      hitPolicy: 'First',
      inputColumns: [
        { name: 'start', type: 'date' },
        { name: 'end', type: 'date' },
      ],
      outputColumns: [{ name: 'o', type: 'string' }],
      rows: [
        { id: 'ok', inputConditions: { end: '>= start' }, outputs: { o: 'ok' } },
        { id: 'reversed', inputConditions: { end: '< start' }, outputs: { o: 'reversed' } },
      ],
    });
    expect(t.evaluate({ start: '2024-01-01', end: '2024-02-01' }).outputValues).toEqual({ o: 'ok' });
    expect(t.evaluate({ start: '2024-03-01', end: '2024-02-01' }).outputValues).toEqual({ o: 'reversed' });
    // the same facts object evaluated again after a change is read again
    const facts = { start: '2024-01-01', end: '2024-02-01' };
    expect(t.evaluate(facts).outputValues).toEqual({ o: 'ok' });
    facts.start = '2024-06-01';
    expect(t.evaluate(facts).outputValues).toEqual({ o: 'reversed' });
  });

  it('a fact compared in columns of different types is left as sent', () => {
    const tests = [[compileUnaryTests('> x.when'), compileUnaryTests('> x.when')]];
    const typing = factTypingOf(['a', 'b'], ['date', 'time'], tests);
    expect(typing.facts).toEqual([]);
    const one = factTypingOf(['a', 'b'], ['date', 'string'], tests);
    expect(one.facts).toEqual([{ path: ['x', 'when'], type: 'date' }]);
  });

  it('types only operands, not values inside calls or arithmetic', () => {
    const tests = [[compileUnaryTests('> date(x.text)'), compileUnaryTests('-')]];
    expect(factTypingOf(['a', 'b'], ['date', 'date'], tests).facts).toEqual([]);
  });

  it('keeps `__proto__` a plain key when copying', () => {
    const input = JSON.parse('{"__proto__": {"d": "2024-01-01"}}') as Record<string, unknown>;
    const out = withTypedFacts(input, [{ path: ['__proto__', 'd'], type: 'date' }]);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(input).not.toBe(out);
  });
});
