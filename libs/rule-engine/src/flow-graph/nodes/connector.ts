import { isObject, nonEmptyString } from '../../document/checks';
import { checkMapping, checkPositiveInteger, MAPPING_SCHEMA, requireText } from '../config-checks';
import { emptyContract, type FlowNodeKindDefinition } from '../node-kind';
import { fail, mapFacts, type Outcome } from '../runtime';

/**
 * `connector`: a side effect through the `connectors` port (`timeoutMs` default 5000, `retries`). With
 * `sideEffects: false` (dry-run, shadow candidate) it is skipped — traced as skipped — and the flow goes
 * on along `next` with no outputs. The connector code is the node's rule code in the catalog.
 */
export const connectorNode: FlowNodeKindDefinition<'connector'> = {
  kind: 'connector',
  branching: false,
  configSchema: {
    type: 'object',
    required: ['connector'],
    properties: {
      connector: { type: 'string', minLength: 1 },
      operation: { type: 'string' },
      inputMapping: MAPPING_SCHEMA,
      outputMapping: MAPPING_SCHEMA,
      timeoutMs: { type: 'integer', minimum: 1, maximum: 60000 },
      retries: { type: 'integer', minimum: 0, maximum: 10 },
    },
  },
  validate(config, at, problems) {
    requireText(config, 'connector', at, problems);
    checkMapping(`${at}.inputMapping`, config.inputMapping, problems);
    checkMapping(`${at}.outputMapping`, config.outputMapping, problems);
    checkPositiveInteger(`${at}.timeoutMs`, config.timeoutMs, problems);
  },
  compile(node, _at, ctx) {
    const config = node.config;
    const connector = config.connector as string;
    const timeoutMs = typeof config.timeoutMs === 'number' ? config.timeoutMs : 5000;
    const retries = typeof config.retries === 'number' ? config.retries : 0;
    return (s) => {
      if (s.options.sideEffects === false)
        return {
          ok: true,
          skipped: 'side effects are off (dry-run or shadow): the connector was not called',
        };
      const invoker = ctx.connectors;
      if (!invoker) return fail('CONNECTOR_UNAVAILABLE', `no connector invoker for '${connector}'`);
      return (async (): Promise<Outcome> => {
        let last: unknown;
        for (let attempt = 0; attempt <= retries; attempt++) {
          try {
            const answer = await invoker.invoke(
              {
                connector,
                operation: typeof config.operation === 'string' ? config.operation : undefined,
                input: mapFacts(s.view, config.inputMapping),
                timeoutMs,
                tenantId: s.options.tenantId,
                correlationId: s.options.correlationId,
              },
              s.options.signal,
            );
            return {
              ok: true,
              outputs: isObject(config.outputMapping) ? mapFacts(answer, config.outputMapping) : answer,
              sideEffect: true,
            };
          } catch (error) {
            last = error;
            if (s.options.signal?.aborted) break;
          }
        }
        return fail('CONNECTOR_FAILED', `connector '${connector}': ${(last as Error)?.message ?? last}`);
      })();
    };
  },
  contract(config) {
    return { ...emptyContract(), ruleCode: nonEmptyString(config.connector) ? config.connector : null };
  },
};
