import { isObject, nonEmptyString } from '../../document/checks';
import { MAX_SUB_FLOW_DEPTH } from '../../rulesets/types';
import { checkMapping, checkPositiveInteger, MAPPING_SCHEMA, requireText } from '../config-checks';
import { emptyContract, FlowCompileError, type FlowNodeKindDefinition } from '../node-kind';
import { errorOutcome, fail, mapFacts } from '../runtime';

/**
 * `sub-flow`: runs another workflow's compiled rule set, resolved at run time through the `resolveSubFlow`
 * port (pinned `version` or the active one), with `inputMapping` (`{ childField: "dotted.path" }`, none:
 * the working facts) and `outputMapping` (`{ field: "dotted.path.in.child.outputs" }`, none: merge).
 * Depth ≤ `MAX_SUB_FLOW_DEPTH`, no cycles (a flow calling itself is refused by the validation).
 */
export const subFlowNode: FlowNodeKindDefinition<'sub-flow'> = {
  kind: 'sub-flow',
  branching: false,
  configSchema: {
    type: 'object',
    required: ['workflowName'],
    properties: {
      workflowName: { type: 'string', minLength: 1 },
      version: { type: 'integer', minimum: 1, description: 'Pinned version; default the active one.' },
      inputMapping: MAPPING_SCHEMA,
      outputMapping: MAPPING_SCHEMA,
    },
  },
  validate(config, at, problems, { workflowName }) {
    if (
      requireText(config, 'workflowName', at, problems) &&
      workflowName &&
      config.workflowName === workflowName
    )
      problems.push({ path: `${at}.workflowName`, message: `a flow cannot call itself ('${workflowName}')` });
    checkPositiveInteger(`${at}.version`, config.version, problems);
    checkMapping(`${at}.inputMapping`, config.inputMapping, problems);
    checkMapping(`${at}.outputMapping`, config.outputMapping, problems);
  },
  compile(node, at, ctx) {
    const config = node.config;
    const workflowName = config.workflowName as string;
    const version = typeof config.version === 'number' ? config.version : undefined;
    const resolve = ctx.resolveSubFlow;
    if (!resolve)
      throw new FlowCompileError([{ path: `${at}.config`, message: 'sub flows are not available here' }]);
    return async (s) => {
      const depth = (s.options.depth ?? 0) + 1;
      const stack = s.options.callStack ?? (ctx.workflowName ? [ctx.workflowName] : []);
      if (depth > MAX_SUB_FLOW_DEPTH)
        return fail('SUB_FLOW_DEPTH_EXCEEDED', `sub flows nest deeper than ${MAX_SUB_FLOW_DEPTH}`);
      if (stack.includes(workflowName))
        return fail('SUB_FLOW_CYCLE', `sub flow cycle: ${[...stack, workflowName].join(' → ')}`);
      try {
        const child = await resolve(workflowName, version);
        const result = await child.evaluate(mapFacts(s.view, config.inputMapping), {
          ...s.options,
          budget: s.budget,
          trace: false,
          depth,
          callStack: [...stack, workflowName],
        });
        if (result.errors.length)
          return fail(result.errors[0].code, `sub flow '${workflowName}': ${result.errors[0].message}`);
        return {
          ok: true,
          outputs: isObject(config.outputMapping)
            ? mapFacts(result.outputs, config.outputMapping)
            : result.outputs,
          sideEffect: result.sideEffectsApplied,
        };
      } catch (error) {
        return errorOutcome(error, 'SUB_FLOW_FAILED');
      }
    };
  },
  contract(config) {
    const out = emptyContract();
    if (!nonEmptyString(config.workflowName)) return out;
    out.subFlows.push(config.workflowName);
    const mapping = isObject(config.outputMapping)
      ? Object.fromEntries(Object.entries(config.outputMapping).map(([fact, path]) => [fact, String(path)]))
      : null;
    // with a mapping the produced facts are its keys (what the runtime's `mapFacts` writes); their
    // types, and without a mapping the facts themselves, come from the child's contract
    if (mapping)
      out.derivedOutputs.push(...Object.keys(mapping).map((path) => ({ path, dataType: 'any' as const })));
    out.subFlowOutputs = {
      workflowName: config.workflowName,
      ...(typeof config.version === 'number' ? { version: config.version } : {}),
      mapping,
    };
    return out;
  },
};
