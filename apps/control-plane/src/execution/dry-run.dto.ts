import { VersionField } from '../shared';
import { ObjectField, StringField } from '@arbiter/platform';
import type { DryRunRequest } from './dry-run.service';

/**
 * A dry-run request, in either form: a stored version (`{ inputs, version? }`: the active version when
 * `version` is omitted) or a rule set document (`{ ruleSet, context, contextType? }`). `context` and
 * `inputs` name the same facts; `ruleSet` and `version` exclude each other (checked by the service).
 */
export class DryRunRequestBody implements DryRunRequest {
  @ObjectField({
    optional: true,
    description: 'The facts to evaluate (stored-version form; required there).',
    example: { amount: 5000 },
  })
  inputs?: Record<string, unknown>;

  @VersionField({
    optional: true,
    description: 'The stored version to run (default: the active version). Not with `ruleSet`.',
    example: 2,
  })
  version?: number;

  @ObjectField({
    optional: true,
    description:
      'A whole rule set document (any of the shapes a save accepts), validated and run without being stored.',
    example: {
      rules: [{ id: 'big', name: 'Big amount', condition: 'input.amount > 1000', output: { tier: 'gold' } }],
    },
  })
  ruleSet?: Record<string, unknown>;

  @ObjectField({
    optional: true,
    description: 'The facts to evaluate (document form; `inputs` is accepted too).',
    example: { amount: 2000 },
  })
  context?: Record<string, unknown>;

  @StringField({
    optional: true,
    minLength: 1,
    description: 'The type of the context (informational).',
    example: 'json',
  })
  contextType?: string;
}
