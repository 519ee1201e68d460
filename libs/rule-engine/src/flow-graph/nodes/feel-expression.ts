import { toJs } from '@arbiter/feel';
import { checkFeel, nonEmptyString } from '../../document/checks';
import { emptyContract, type FlowNodeKindDefinition } from '../node-kind';
import { compileFeel, DONE, emit, fail } from '../runtime';
import { requireText } from '../config-checks';

/** `feel-expression`: stores the value of a FEEL expression under `outputVariable`. */
export const feelExpressionNode: FlowNodeKindDefinition<'feel-expression'> = {
  kind: 'feel-expression',
  branching: false,
  configSchema: {
    type: 'object',
    required: ['expression', 'outputVariable'],
    properties: {
      expression: { type: 'string', minLength: 1 },
      outputVariable: { type: 'string', minLength: 1 },
    },
  },
  validate(config, at, problems) {
    if (requireText(config, 'expression', at, problems))
      checkFeel(`${at}.expression`, config.expression as string, problems);
    requireText(config, 'outputVariable', at, problems);
  },
  compile(node, at) {
    const expr = compileFeel(node.config.expression as string, `${at}.config.expression`);
    const name = node.config.outputVariable as string;
    // A null that the expression does not literally ask for is a failure (an unknown name, a type error).
    const nullIsTheAnswer = /^\s*null\s*$/.test(expr.source);
    return (s) => {
      const v = expr.evaluateIn(s.feel);
      if (v === null && !nullIsTheAnswer)
        return fail('EXPRESSION_FAILED', `'${expr.source}' evaluated to null`);
      emit(s, name, toJs(v));
      return DONE;
    };
  },
  contract(config) {
    const out = emptyContract();
    if (nonEmptyString(config.outputVariable))
      out.derivedOutputs.push({ path: config.outputVariable, dataType: 'any' });
    return out;
  },
};
