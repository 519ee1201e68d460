import { nonEmptyString } from '../../document/checks';
import { compileTemplate } from '../../templates';
import { emptyContract, FlowCompileError, type FlowNodeKindDefinition } from '../node-kind';
import { DONE, emit, errorOutcome } from '../runtime';
import { requireText } from '../config-checks';

/**
 * `template`: renders a Liquid template over the working facts into `outputVariable`. Checked by the
 * engine that renders it (liquidjs through `compileTemplate`): syntax, unknown filters, refused file tags
 * (`include`, `render`, `layout`) and the size limit.
 */
export const templateNode: FlowNodeKindDefinition<'template'> = {
  kind: 'template',
  branching: false,
  configSchema: {
    type: 'object',
    required: ['template', 'outputVariable'],
    properties: {
      template: {
        type: 'string',
        description: 'Liquid-style template ({{ value }}, {% if %}…{% endif %}).',
      },
      outputVariable: { type: 'string', minLength: 1 },
    },
  },
  validate(config, at, problems) {
    if (typeof config.template !== 'string')
      problems.push({ path: `${at}.template`, message: 'required (string)' });
    else
      try {
        compileTemplate(config.template);
      } catch (error) {
        problems.push({ path: `${at}.template`, message: `template: ${(error as Error).message}` });
      }
    requireText(config, 'outputVariable', at, problems);
  },
  compile(node, at) {
    let render: (scope: Record<string, unknown>) => string;
    try {
      render = compileTemplate(node.config.template as string);
    } catch (error) {
      throw new FlowCompileError([{ path: `${at}.config.template`, message: (error as Error).message }]);
    }
    const name = node.config.outputVariable as string;
    return (s) => {
      try {
        emit(s, name, render(s.view));
        return DONE;
      } catch (error) {
        return errorOutcome(error, 'TEMPLATE_FAILED');
      }
    };
  },
  contract(config) {
    const out = emptyContract();
    if (nonEmptyString(config.outputVariable))
      out.derivedOutputs.push({ path: config.outputVariable, dataType: 'string' });
    return out;
  },
};
