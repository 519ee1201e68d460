import { AppError } from '../errors/app-error';
import { defineTool, ToolArgumentSchema } from './tool';
import { ToolRegistry } from './tool-registry';

/** A hand-written schema (a zod object fits the same shape): `{ name: string }`, nothing else. */
const nameSchema: ToolArgumentSchema<{ name: string }> = {
  safeParse(value) {
    const v = value as Record<string, unknown>;
    if (typeof v?.name === 'string' && Object.keys(v).length === 1)
      return { success: true, data: { name: v.name } };
    return { success: false, error: { issues: [{ path: ['name'], message: 'expected a string' }] } };
  },
};

const calls: string[] = [];
const greet = defineTool({
  name: 'greet',
  description: 'says hello',
  inputSchema: nameSchema,
  handler: (args) => `hello ${args.name}`,
});
const guarded = defineTool({
  name: 'guarded',
  description: 'refuses everyone',
  inputSchema: nameSchema,
  authorize: () => {
    calls.push('authorize');
    throw AppError.forbidden();
  },
  handler: () => calls.push('handler'),
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: AppError) => ({ status: error.status, code: error.code, details: error.details }),
  );

describe('ToolRegistry (plain call { method, args })', () => {
  const registry = new ToolRegistry([greet, guarded]);

  it('answers { result } from the handler with the parsed arguments', async () => {
    expect(await registry.callPlain({ method: 'greet', args: { name: 'ada' } })).toEqual({
      result: 'hello ada',
    });
  });

  it('refuses a missing method, an unknown tool and bad arguments with 400 and a code naming the problem', async () => {
    expect(await failure(registry.callPlain({ args: {} }))).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      details: [{ field: 'method' }],
    });
    expect(await failure(registry.callPlain({ method: 'nope' }))).toMatchObject({
      status: 400,
      code: 'UNKNOWN_TOOL',
    });
    expect(await failure(registry.callPlain({ method: 'greet', args: { name: 1 } }))).toEqual({
      status: 400,
      code: 'INVALID_TOOL_ARGUMENTS',
      details: [{ field: 'args.name', message: 'expected a string' }],
    });
  });

  it('authorizes before it checks the arguments, and never runs the handler of a refused call', async () => {
    expect(await failure(registry.callPlain({ method: 'guarded', args: 'junk' }))).toMatchObject({
      status: 403,
    });
    expect(calls).toEqual(['authorize']);
  });

  it("keeps a service's own codes when asked", async () => {
    const own = new ToolRegistry([greet], {
      unknownToolStatus: 404,
      invalidArgumentsCode: 'VALIDATION_FAILED',
    });
    expect(await failure(own.callPlain({ method: 'nope' }))).toMatchObject({
      status: 404,
      code: 'UNKNOWN_TOOL',
    });
    expect(await failure(own.callPlain({ method: 'greet' }))).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('refuses two tools of the same name', () => {
    expect(() => new ToolRegistry([greet, greet])).toThrow(/unique/);
  });
});
