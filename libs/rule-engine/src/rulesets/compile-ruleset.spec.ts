import { FlowCompileError } from '../flow-graph';
import { CodeBasedCompileError } from '../library';
import { compileRuleSet } from './compile-ruleset';
import { RuleDocumentCompileError } from './rules-form';
import type { CodeRuleImplementation } from './types';

const adult: CodeRuleImplementation = { code: 'ADULT', evaluate: (facts) => Number(facts.age) >= 18 };

describe('compileRuleSet validates with validateRuleSet first', () => {
  it('refuses what the save would refuse, as the shape compile error, with every problem', async () => {
    const rules = compileRuleSet({ rules: [{ id: 'a', condition: 'x >' }] }, 'rules');
    await expect(rules).rejects.toBeInstanceOf(RuleDocumentCompileError);
    await expect(rules).rejects.toMatchObject({
      problems: [
        { path: 'rules[0].name', message: 'required (non-empty string)' },
        { path: 'rules[0].condition', message: expect.stringMatching(/^FEEL syntax error/) },
      ],
    });
    await expect(
      compileRuleSet({ WorkflowName: 'other', Rules: [{ RuleName: 'r', Expression: 'true' }] }, 'legacy', {
        workflowName: 'wf',
      }),
    ).rejects.toMatchObject({
      problems: [{ path: 'WorkflowName', message: "'other' differs from the workflow 'wf' in the path" }],
    });
    await expect(compileRuleSet({ nodes: [] }, 'flow-graph')).rejects.toBeInstanceOf(FlowCompileError);
    await expect(
      compileRuleSet(
        { nodes: [{ id: 's', kind: 'sub-flow', config: { workflowName: 'wf' } }] },
        'flow-graph',
        {
          workflowName: 'wf',
        },
      ),
    ).rejects.toMatchObject({
      problems: [{ path: 'nodes[0].config.workflowName', message: "a flow cannot call itself ('wf')" }],
    });
  });

  it("knows code-based codes by the resolver's has(), else by get()", async () => {
    const doc = { rules: [{ code: 'ADULT' }] };
    const byGet = { get: (code: string) => (code === 'ADULT' ? adult : undefined) };
    const ruleSet = await compileRuleSet(doc, 'code-based', { codeRules: byGet });
    expect((await ruleSet.evaluate({ age: 20 })).rulesMatched).toEqual(['ADULT']);
    const unknown = compileRuleSet({ rules: [{ code: 'GHOST' }] }, 'code-based', { codeRules: byGet });
    await expect(unknown).rejects.toBeInstanceOf(CodeBasedCompileError);
    await expect(unknown).rejects.toMatchObject({ code: 'INVALID_CODE_BASED_RULESET' });
    // A code the registry knows without an implementation here passes validation and fails to compile.
    const manifestOnly = compileRuleSet({ rules: [{ code: 'REMOTE' }] }, 'code-based', {
      codeRules: { get: () => undefined, has: (code) => code === 'REMOTE' },
    });
    await expect(manifestOnly).rejects.toMatchObject({ code: 'UNKNOWN_RULE_CODE' });
  });

  it('compiles a valid document of each shape', async () => {
    const rules = await compileRuleSet(
      { rules: [{ id: 'a', name: 'A', condition: 'age > 1', output: { ok: true } }] },
      'rules',
    );
    expect((await rules.evaluate({ age: 2 })).outputs).toEqual({ ok: true });
    const flow = await compileRuleSet(
      {
        nodes: [
          { id: 'n', kind: 'feel-expression', config: { expression: 'age + 1', outputVariable: 'next' } },
        ],
      },
      'flow-graph',
    );
    expect((await flow.evaluate({ age: 2 })).outputs).toEqual({ next: 3 });
  });
});
