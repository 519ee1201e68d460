import { FLOW_GRAPH_SCHEMA } from '@arbiter/rule-engine';

/** The shapes a copilot draft can take (the legacy rules-engine JSON is a source format, not drafted). */
export const DRAFT_SHAPES = ['rules', 'code-based', 'flow-graph'] as const;
export type DraftShape = (typeof DRAFT_SHAPES)[number];

const RULES_FORM_SCHEMA = {
  type: 'object',
  required: ['rules'],
  additionalProperties: false,
  properties: {
    type: { const: 'rules' },
    expressionLanguage: { enum: ['feel'] },
    rules: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['id', 'name', 'condition', 'output'],
        additionalProperties: false,
        properties: {
          id: { type: 'string', description: 'unique, non-empty' },
          name: { type: 'string', description: 'unique, human readable' },
          condition: {
            type: 'string',
            description: 'a FEEL boolean expression over the input facts, e.g. applicant.age >= 18',
          },
          output: { type: 'object', description: 'the facts the rule outputs when its condition holds' },
        },
      },
    },
  },
} as const;

const CODE_BASED_SCHEMA = {
  type: 'object',
  required: ['type', 'rules'],
  additionalProperties: false,
  properties: {
    type: { const: 'code-based' },
    rules: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['code'],
        additionalProperties: false,
        properties: {
          code: { type: 'string', description: 'a rule code registered in the control plane' },
          id: { type: 'string' },
          name: { type: 'string' },
          parameters: { type: 'object' },
          enabled: { type: 'boolean' },
        },
      },
    },
  },
} as const;

/** JSON Schema of each draftable shape, sent to the model as `response_format.json_schema.schema`. */
export function shapeSchema(shape: DraftShape): Record<string, unknown> {
  switch (shape) {
    case 'rules':
      return RULES_FORM_SCHEMA as unknown as Record<string, unknown>;
    case 'code-based':
      return CODE_BASED_SCHEMA as unknown as Record<string, unknown>;
    case 'flow-graph':
      return FLOW_GRAPH_SCHEMA as unknown as Record<string, unknown>;
  }
}
