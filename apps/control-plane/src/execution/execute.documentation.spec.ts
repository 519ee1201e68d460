import { AppError } from '@arbiter/platform';
import { ExecuteRequestBody, ExecuteRouteDocumentation } from './execute.documentation';
import { parseExecuteBody } from './execution.controller';

/** What `@ApiProperty` recorded for a field of the documented body. */
function documented(field: string): Record<string, any> {
  return Reflect.getMetadata('swagger/apiModelProperties', ExecuteRequestBody.prototype, field);
}

const DOCUMENTED_FIELDS: string[] = (
  Reflect.getMetadata('swagger/apiModelPropertiesArray', ExecuteRequestBody.prototype) as string[]
).map((key) => key.replace(/^:/, ''));

function refused(body: unknown): AppError {
  try {
    parseExecuteBody('loan', body);
  } catch (error) {
    return error as AppError;
  }
  throw new Error(`accepted ${JSON.stringify(body)}`);
}

/**
 * The execute route validates its body by hand (`parseExecuteBody`, the hot path); its request schema is
 * a documentation-only class. These keep the two together.
 */
describe('the documented execute request body matches parseExecuteBody', () => {
  it('documents exactly the fields the parser reads (inputs: another name of facts)', () => {
    // every optional field given, so each one the parser reads is in its result
    const parsed = parseExecuteBody('loan', { facts: {}, window: { configId: 'logins', keyFact: 'user' } });
    const read = Object.keys(parsed).filter((key) => key !== 'workflowName');
    expect([...DOCUMENTED_FIELDS].sort()).toEqual([...read, 'inputs'].sort());
  });

  it('accepts every documented example', () => {
    const parameters: { in: string; examples?: Record<string, { value: unknown }> }[] =
      Reflect.getMetadata('swagger/apiParameters', ExecuteRouteDocumentation.prototype.execute) ?? [];
    const examples = parameters
      .filter((p) => p.in === 'body')
      .flatMap((p) => Object.values(p.examples ?? {}));
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(() => parseExecuteBody('loan', example.value)).not.toThrow();
  });

  it.each(['correlationId', 'bucketKey'])('%s: a string up to its documented maxLength, or null', (field) => {
    const { maxLength, nullable, type } = documented(field);
    expect({ type, nullable }).toEqual({ type: 'string', nullable: true });
    expect(parseExecuteBody('loan', { [field]: 'k'.repeat(maxLength) })[field as 'bucketKey']).toHaveLength(
      maxLength,
    );
    expect(parseExecuteBody('loan', { [field]: null })[field as 'bucketKey']).toBeUndefined();
    expect(refused({ [field]: 'k'.repeat(maxLength + 1) }).status).toBe(400);
    expect(refused({ [field]: 7 }).status).toBe(400);
  });

  it('trace: a boolean', () => {
    expect(documented('trace').type).toBe('boolean');
    expect(parseExecuteBody('loan', { trace: true }).trace).toBe(true);
    expect(refused({ trace: 'yes' }).status).toBe(400);
  });

  it.each(['facts', 'inputs'])('%s: a JSON object', (field) => {
    expect(documented(field)).toMatchObject({ type: 'object', additionalProperties: true });
    expect(parseExecuteBody('loan', { [field]: { amount: 1 } }).facts).toEqual({ amount: 1 });
    expect(refused({ [field]: [1] }).status).toBe(400);
  });
});
