/**
 * The 10-node flow of the execution targets: conditions, a 20-row `First` decision table (embedded),
 * FEEL expressions and a Liquid template. One path runs 8 of the 10 nodes.
 */
const COUNTRIES = ['DE', 'FR', 'US', 'GB', 'IN'];

function riskTable() {
  const rows = [];
  for (let i = 0; i < 19; i++) {
    rows.push({
      id: `r${i + 1}`,
      inputConditions: {
        age: `[${18 + i * 3}..${20 + i * 3}]`,
        income: i % 2 ? '>= 40000' : '< 40000',
        country: `"${COUNTRIES[i % COUNTRIES.length]}"`,
      },
      outputs: { riskClass: `C${i % 4}`, score: 20 + i * 4 },
    });
  }
  rows.push({ id: 'fallback', inputConditions: {}, outputs: { riskClass: 'C9', score: 10 } });
  return {
    name: 'risk',
    hitPolicy: 'First',
    inputColumns: [
      { name: 'age', type: 'number', expression: 'applicant.age' },
      { name: 'income', type: 'number', expression: 'applicant.income' },
      { name: 'country', type: 'string', expression: 'applicant.country' },
    ],
    outputColumns: [
      { name: 'riskClass', type: 'string' },
      { name: 'score', type: 'number' },
    ],
    rows,
  };
}

function flow10(label = 'limit') {
  return {
    type: 'flow-graph',
    schemaVersion: 1,
    start: 'adult',
    inputs: [
      { path: 'applicant.age', dataType: 'number' },
      { path: 'applicant.income', dataType: 'number' },
      { path: 'applicant.country', dataType: 'string' },
      { path: 'applicant.name', dataType: 'string' },
    ],
    nodes: [
      {
        id: 'adult',
        kind: 'condition',
        config: { expression: 'applicant.age >= 18' },
        edges: [
          { kind: 'on-true', target: 'risk' },
          { kind: 'on-false', target: 'reject' },
        ],
      },
      {
        id: 'risk',
        kind: 'decision-table',
        config: { table: riskTable(), outputVariable: 'risk' },
        edges: [{ kind: 'next', target: 'limit' }],
      },
      {
        id: 'limit',
        kind: 'feel-expression',
        config: {
          expression: 'applicant.income * (if risk.score > 50 then 0.5 else 0.2)',
          outputVariable: 'limit',
        },
        edges: [{ kind: 'next', target: 'big' }],
      },
      {
        id: 'big',
        kind: 'condition',
        config: { expression: 'limit > 10000' },
        edges: [
          { kind: 'on-true', target: 'premium' },
          { kind: 'on-false', target: 'standard' },
        ],
      },
      {
        id: 'premium',
        kind: 'feel-expression',
        config: { expression: '"premium"', outputVariable: 'segment' },
        edges: [{ kind: 'next', target: 'rate' }],
      },
      {
        id: 'standard',
        kind: 'feel-expression',
        config: { expression: '"standard"', outputVariable: 'segment' },
        edges: [{ kind: 'next', target: 'rate' }],
      },
      {
        id: 'rate',
        kind: 'feel-expression',
        config: { expression: 'if segment = "premium" then 0.05 else 0.08', outputVariable: 'rate' },
        edges: [{ kind: 'next', target: 'approved' }],
      },
      {
        id: 'approved',
        kind: 'feel-expression',
        config: { expression: 'true', outputVariable: 'approved' },
        edges: [{ kind: 'next', target: 'message' }],
      },
      {
        id: 'message',
        kind: 'template',
        config: {
          template: `Dear {{ applicant.name }}, your {{ segment }} ${label} is {{ limit }} at {{ rate }}.`,
          outputVariable: 'message',
        },
      },
      {
        id: 'reject',
        kind: 'feel-expression',
        config: { expression: 'false', outputVariable: 'approved' },
      },
    ],
  };
}

function applicants(n) {
  const out = [];
  for (let i = 0; i < n; i++)
    out.push({
      applicant: {
        age: 16 + ((i * 7) % 60),
        income: 20000 + ((i * 7919) % 80000),
        country: COUNTRIES[i % COUNTRIES.length],
        name: `Applicant ${i}`,
      },
    });
  return out;
}

module.exports = { flow10, riskTable, applicants };
