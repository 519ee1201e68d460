import type { DraftShape } from './shape-schemas';

/** One example the author gives: facts in, the outputs the author expects. */
export interface DraftExample {
  facts: Record<string, unknown>;
  expected: Record<string, unknown>;
}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

const SHAPE_GUIDE: Record<DraftShape, string> = {
  rules:
    'the rules form: { "rules": [{ "id", "name", "condition", "output" }] }. Each condition is a FEEL ' +
    'boolean expression over the input facts (dotted paths such as applicant.age, operators and, or, ' +
    'not(), =, !=, <, <=, >, >=, strings in double quotes). Each output is an object of literal values ' +
    'the rule sets when its condition holds.',
  'code-based':
    'the code-based form: { "type": "code-based", "rules": [{ "code", "id"?, "name"?, "parameters"? }] }, ' +
    'using only rule codes registered in the platform.',
  'flow-graph':
    'the flow-graph form: { "type": "flow-graph", "schemaVersion": 1, "start", "nodes": [...] } as the ' +
    'JSON schema describes (condition expressions in FEEL).',
};

/** The chat messages that ask for a rule set: the shape's guide, the description, the examples. */
export function draftMessages(input: {
  workflowName: string;
  description: string;
  shape: DraftShape;
  examples: DraftExample[];
}): ChatMessage[] {
  const system =
    'You draft business rule sets for a rules engine. Answer with one JSON object only, matching the ' +
    `given JSON schema: ${SHAPE_GUIDE[input.shape]} Do not explain; no Markdown.`;
  const lines = [`Workflow: ${input.workflowName}`, '', 'What the rules must do:', input.description];
  if (input.examples.length) {
    lines.push('', 'Examples (input facts → outputs the rules must produce):');
    for (const example of input.examples)
      lines.push(`- ${JSON.stringify(example.facts)} → ${JSON.stringify(example.expected)}`);
  }
  return [
    { role: 'system', content: system },
    { role: 'user', content: lines.join('\n') },
  ];
}

/** Whether `actual` holds every expected field with an equal value (deep, JSON equality). */
export function meetsExpectation(
  actual: Record<string, unknown>,
  expected: Record<string, unknown>,
): string[] {
  const mismatches: string[] = [];
  for (const [key, want] of Object.entries(expected)) {
    const got = actual[key];
    if (JSON.stringify(sortKeys(got)) !== JSON.stringify(sortKeys(want)))
      mismatches.push(
        `${key}: expected ${JSON.stringify(want)}, got ${got === undefined ? 'nothing' : JSON.stringify(got)}`,
      );
  }
  return mismatches;
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value as object)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}
