import { checkFeel } from '../../document/checks';
import { emptyContract, type FlowNodeKindDefinition } from '../node-kind';
import { compileFeel, fail, FALSE, TRUE } from '../runtime';
import { requireText } from '../config-checks';

/** `condition`: a FEEL expression over the working facts that must give a boolean; branches on it. */
export const conditionNode: FlowNodeKindDefinition<'condition'> = {
  kind: 'condition',
  branching: true,
  configSchema: {
    type: 'object',
    required: ['expression'],
    properties: { expression: { type: 'string', minLength: 1 }, language: { const: 'feel' } },
  },
  validate(config, at, problems) {
    if (config.language !== undefined && config.language !== 'feel')
      problems.push({
        path: `${at}.language`,
        message: `unsupported language '${String(config.language)}' (feel)`,
      });
    if (requireText(config, 'expression', at, problems))
      checkFeel(`${at}.expression`, config.expression as string, problems);
  },
  compile(node, at) {
    const expr = compileFeel(node.config.expression as string, `${at}.config.expression`);
    return (s) => {
      const v = expr.evaluateIn(s.feel);
      return v === true
        ? TRUE
        : v === false
          ? FALSE
          : fail('CONDITION_NOT_BOOLEAN', `condition gave ${v === null ? 'null' : typeof v}, not a boolean`);
    };
  },
  contract: emptyContract,
};
