/**
 * Tables the unit tests, the decisions tests and the benches share: `@arbiter/scenarios/fixtures`, a subpath of
 * its own, not the library's index.
 */
import type { DecisionTableDefinition } from '@arbiter/rule-engine';

/** The spec's loan example: amount thresholds, a risk class, a date and a duration. */
export const LOAN_TABLE: DecisionTableDefinition = {
  name: 'loan approval',
  hitPolicy: 'First',
  inputColumns: [
    { name: 'amount', type: 'number' },
    { name: 'risk', type: 'string' },
    { name: 'since', type: 'date' },
    { name: 'term', type: 'duration' },
  ],
  outputColumns: [{ name: 'decision', type: 'string', defaultValue: 'refer' }],
  rows: [
    {
      id: 'r1',
      inputConditions: { amount: '>= 5000', risk: '"high"', since: '-', term: '-' },
      outputs: { decision: 'reject' },
    },
    {
      id: 'r2',
      inputConditions: {
        amount: '[1000..5000)',
        risk: '"low","medium"',
        since: '< date("2020-01-01")',
        term: '-',
      },
      outputs: { decision: 'approve' },
    },
    {
      id: 'r3',
      inputConditions: { amount: '< 1000', risk: '-', since: '-', term: '<= duration("P30D")' },
      outputs: { decision: 'fast-track' },
    },
    {
      id: 'r4',
      inputConditions: { amount: '(0..100]', risk: 'not("high")', since: '-', term: '-' },
      outputs: { decision: 'micro' },
    },
  ],
};

/** A generated table of `n` rows over two numeric columns and a string column (Unique hit policy). */
export function bigTable(n: number, name = `big ${n}`): DecisionTableDefinition {
  const categories = ['a', 'b', 'c', 'd'];
  return {
    name,
    hitPolicy: 'Unique',
    inputColumns: [
      { name: 'x', type: 'number' },
      { name: 'category', type: 'string' },
      { name: 'y', type: 'number' },
    ],
    outputColumns: [{ name: 'out', type: 'number' }],
    rows: Array.from({ length: n }, (_, i) => ({
      id: `row-${i + 1}`,
      inputConditions: {
        x: `[${i * 10}..${i * 10 + 10})`,
        category: JSON.stringify(categories[i % 4]),
        y: i % 2 === 0 ? '>= 50' : '< 50',
      },
      outputs: { out: i },
    })),
  };
}
