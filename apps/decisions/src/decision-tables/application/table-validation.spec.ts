import { AppError } from '@arbiter/platform';
import { checkDecisionTable } from '@arbiter/rule-engine';
import { DecisionTablesSettings } from '../../settings';
import { checkedDefinition, tableLimits, validateDefinition } from './table-validation';

const limits = tableLimits(Object.assign(new DecisionTablesSettings(), { maxRows: 2, maxColumns: 3 }));

const table = (rows: unknown[]) => ({
  name: 'Loan risk',
  hitPolicy: 'First',
  inputColumns: [{ name: 'age', type: 'number' }],
  outputColumns: [{ name: 'risk', type: 'string' }],
  rows,
});

const row = (id: string, age: string) => ({ id, inputConditions: { age }, outputs: { risk: 'x' } });

describe('table validation', () => {
  it('takes the row and column limits from the settings', () => {
    expect(limits).toEqual({ maxRows: 2, maxColumns: 3, maxCellLength: 10_000 });
  });

  it('accepts a valid definition and fills what is stored', async () => {
    const stored = await checkedDefinition(
      table([row('r1', '< 18')]),
      checkDecisionTable(table([row('r1', '< 18')]), limits),
    );
    expect(stored.rows).toEqual([
      { id: 'r1', priority: 0, inputConditions: { age: '< 18' }, outputs: { risk: 'x' } },
    ]);
    expect(validateDefinition(table([row('r1', '< 18')]), limits)).toMatchObject({ valid: true, errors: [] });
  });

  it('refuses a bad cell with 400 INVALID_TABLE naming the row and column', () => {
    let error: unknown;
    try {
      checkedDefinition(table([row('r1', '[1..')]), checkDecisionTable(table([row('r1', '[1..')]), limits));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_TABLE' });
    expect((error as AppError).details?.[0].field).toBe('rows.r1.age');
  });

  it('refuses more rows than MaxRows', () => {
    const result = validateDefinition(table([row('a', '1'), row('b', '2'), row('c', '3')]), limits);
    expect(result.valid).toBe(false);
    expect(() =>
      checkedDefinition(
        table([row('a', '1'), row('b', '2'), row('c', '3')]),
        checkDecisionTable(table([row('a', '1'), row('b', '2'), row('c', '3')]), limits),
      ),
    ).toThrow(AppError);
  });
});
