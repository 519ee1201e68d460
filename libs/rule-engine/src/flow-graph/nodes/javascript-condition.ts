import { compileFunction } from 'node:vm';
import type { Problem } from '../../document/problems';
import { sharedJavaScriptSandbox } from '../../sandbox';
import { emptyContract, FlowCompileError, type FlowNodeKindDefinition } from '../node-kind';
import { errorOutcome, FALSE, TRUE } from '../runtime';
import { requireText } from '../config-checks';

/**
 * Syntax check of a script body, compiled as a function body (a body that closes the function early is
 * a syntax error) and never run: V8 gives the line of the error synchronously, which the QuickJS sandbox
 * (asynchronous to start) cannot. Execution happens in the sandbox, which checks the same way.
 */
function checkJavaScript(path: string, source: string, problems: Problem[]): void {
  try {
    compileFunction(`"use strict";\n${source}`, ['input', 'facts'], { filename: 'condition.js' });
  } catch (error) {
    const message = (error as Error).message;
    const line = /condition\.js:(\d+)/.exec(String((error as Error).stack ?? ''))?.[1];
    problems.push({
      path,
      message: `JavaScript syntax error${line ? ` at line ${Number(line) - 1}` : ''}: ${message}`,
    });
  }
}

/** `javascript-condition`: a script in the QuickJS sandbox (`input`, `facts` in scope) that returns a boolean. */
export const javascriptConditionNode: FlowNodeKindDefinition<'javascript-condition'> = {
  kind: 'javascript-condition',
  branching: true,
  configSchema: {
    type: 'object',
    required: ['script'],
    properties: {
      script: {
        type: 'string',
        minLength: 1,
        description: 'Function body returning a boolean; `input` and `facts` in scope.',
      },
      timeoutMs: { type: 'integer', minimum: 1, maximum: 10000 },
    },
  },
  validate(config, at, problems) {
    if (requireText(config, 'script', at, problems))
      checkJavaScript(`${at}.script`, config.script as string, problems);
  },
  async compile(node, at) {
    const sandbox = await sharedJavaScriptSandbox();
    let condition: ReturnType<typeof sandbox.compileCondition>;
    try {
      condition = sandbox.compileCondition(node.config.script as string, {
        timeoutMs: typeof node.config.timeoutMs === 'number' ? node.config.timeoutMs : undefined,
      });
    } catch (error) {
      throw new FlowCompileError([{ path: `${at}.config.script`, message: (error as Error).message }]);
    }
    return (s) => {
      try {
        return condition(s.input, s.view) ? TRUE : FALSE;
      } catch (error) {
        return errorOutcome(error, 'SANDBOX_ERROR');
      }
    };
  },
  contract: emptyContract,
};
