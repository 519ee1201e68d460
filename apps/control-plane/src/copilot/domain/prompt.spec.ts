import { draftMessages, meetsExpectation } from './prompt';
import { shapeSchema } from './shape-schemas';

describe('copilot prompt and example checks', () => {
  it('asks for the shape with the description and every example', () => {
    const [system, user] = draftMessages({
      workflowName: 'loans',
      description: 'adults only',
      shape: 'rules',
      examples: [{ facts: { age: 17 }, expected: { ok: false } }],
    });
    expect(system.role).toBe('system');
    expect(system.content).toContain('FEEL');
    expect(user.content).toContain('Workflow: loans');
    expect(user.content).toContain('adults only');
    expect(user.content).toContain('{"age":17} → {"ok":false}');
  });

  it('compares expected fields deeply, ignoring key order and extra outputs', () => {
    expect(meetsExpectation({ a: { x: 1, y: 2 }, extra: true }, { a: { y: 2, x: 1 } })).toEqual([]);
    expect(meetsExpectation({ a: 1 }, { a: '1' })).toEqual(['a: expected "1", got 1']);
    expect(meetsExpectation({}, { b: null })).toEqual(['b: expected null, got nothing']);
  });

  it('has a JSON schema per draftable shape', () => {
    expect(shapeSchema('rules')).toMatchObject({ required: ['rules'] });
    expect(shapeSchema('code-based')).toMatchObject({ required: ['type', 'rules'] });
    expect(shapeSchema('flow-graph')).toMatchObject({ type: 'object' });
  });
});
