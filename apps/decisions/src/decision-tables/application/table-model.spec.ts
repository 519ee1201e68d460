import { toStoredDefinition } from './table-model';

describe('toStoredDefinition', () => {
  const columns = {
    hitPolicy: 'First',
    inputColumns: [{ name: 'age', type: 'number' }],
    outputColumns: [{ name: 'risk', type: 'string' }],
  };

  it('keeps row ids that are sent, so diffs can follow a row across versions', () => {
    const stored = toStoredDefinition({
      name: '  Loan risk ',
      ...columns,
      rows: [{ id: 'r1', priority: 3, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } }],
    });
    expect(stored).toEqual({
      name: 'Loan risk',
      ...columns,
      rows: [{ id: 'r1', priority: 3, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } }],
    });
  });

  it('assigns a UUID to a row without id (or a blank one), priority 0, and empty conditions and outputs', () => {
    const stored = toStoredDefinition({ name: 'T', ...columns, rows: [{}, { id: '  ' }] });
    for (const row of stored.rows) {
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(row).toMatchObject({ priority: 0, inputConditions: {}, outputs: {} });
    }
    expect(stored.rows[0].id).not.toBe(stored.rows[1].id);
  });

  it('keeps a string description and drops anything else', () => {
    expect(toStoredDefinition({ name: 'T', description: 'why', ...columns, rows: [] }).description).toBe(
      'why',
    );
    expect(toStoredDefinition({ name: 'T', description: 42, ...columns, rows: [] })).not.toHaveProperty(
      'description',
    );
  });
});
