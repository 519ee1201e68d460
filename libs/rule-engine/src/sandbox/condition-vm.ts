import { currentEvaluation } from '@arbiter/feel';
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import { SandboxError, type SandboxErrorCode } from './errors';
import { CONDITION_FACTORY, HARDEN_INTRINSICS, conditionFunctionSource } from './harden';
import type { ResolvedSandboxLimits } from './limits';
import type { QuickJSModuleSlot } from './quickjs-module';

/** Time allowed to set a context up (hardening + compiling the script) and to read a thrown error. */
const SETUP_TIMEOUT_MS = 2_000;
const DESCRIBE_TIMEOUT_MS = 20;

interface Vm {
  module: QuickJSWASMModule;
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  run: QuickJSHandle;
}

interface Thrown {
  name: string;
  message: string;
}

/**
 * One compiled condition: its own QuickJS runtime (memory and stack limits, interrupt handler) and
 * context (frozen intrinsics), reused across runs. A run that times out, exhausts memory or stack, or
 * leaves queued promise jobs behind throws away runtime and context; the next run builds fresh ones.
 * Values cross as JSON text only: no host object or function is ever visible in the VM.
 *
 * An exception of the host itself while QuickJS runs (V8's stack running out under a deep recursion)
 * leaves the WebAssembly instance inconsistent: the runtime is dropped without being freed, the instance
 * is abandoned to the slot's spare, and the run fails with `SANDBOX_MEMORY`.
 */
export class ConditionVm {
  private vm: Vm | null;
  private deadline = 0;
  private disposed = false;

  constructor(
    private readonly modules: QuickJSModuleSlot,
    private readonly source: string,
    private readonly limits: ResolvedSandboxLimits,
  ) {
    this.vm = this.create();
  }

  run(input: unknown, facts: unknown): boolean {
    if (this.disposed) throw new SandboxError('SANDBOX_ERROR', 'the sandboxed condition has been disposed');
    const json = toJsonArguments(input, facts);
    if (this.vm && this.vm.module !== this.modules.current()) this.vm = null; // its instance was abandoned
    const vm = (this.vm ??= this.create());
    const { context, runtime } = vm;
    const argument = context.newString(json);
    // the script's own limit, cut short by the deadline of the evaluation it is part of (a flow's
    // `ExecutionTimeoutMs`, a dry-run's limit): a node's `timeoutMs` never outlives its execution
    const own = Date.now() + this.limits.timeoutMs;
    const evaluationDeadline = currentEvaluation()?.deadline ?? Infinity;
    this.deadline = Math.min(own, evaluationDeadline);
    const cutByEvaluation = evaluationDeadline < own;
    let result: ReturnType<QuickJSContext['callFunction']>;
    try {
      result = context.callFunction(vm.run, context.undefined, argument);
    } catch (hostError) {
      throw this.abandon(vm, hostError);
    }
    argument.dispose();
    if (result.error) {
      const thrown = this.describe(context, result.error);
      result.error.dispose();
      const code = classify(thrown);
      if (code !== 'SANDBOX_ERROR') this.reset();
      if (code === 'SANDBOX_TIMEOUT' && cutByEvaluation)
        throw new SandboxError(
          'DEADLINE_EXCEEDED',
          'the script ran past the deadline of its evaluation and was stopped',
        );
      throw new SandboxError(code, messageOf(code, thrown, this.limits));
    }
    const type = context.typeof(result.value);
    const value = type === 'boolean' ? context.sameValue(result.value, context.true) : undefined;
    result.value.dispose();
    if (runtime.hasPendingJob()) this.reset();
    if (value === undefined)
      throw new SandboxError(
        'SANDBOX_RESULT',
        `the script returned ${type === 'undefined' ? 'nothing (undefined)' : `a ${type}`}; a condition must return true or false`,
      );
    return value;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.reset();
  }

  private create(): Vm {
    const module = this.modules.current();
    if (!module) throw new SandboxError('SANDBOX_ERROR', 'the sandbox is restarting; try again shortly');
    const runtime = module.newRuntime();
    runtime.setMemoryLimit(this.limits.memoryLimitBytes);
    runtime.setMaxStackSize(this.limits.stackSizeBytes);
    runtime.setInterruptHandler(() => Date.now() > this.deadline);
    const context = runtime.newContext();
    const vm: Vm = { module, runtime, context, run: undefined as unknown as QuickJSHandle };
    try {
      this.deadline = Date.now() + SETUP_TIMEOUT_MS;
      this.evaluate(context, HARDEN_INTRINSICS, 'harden.js', 'sandbox setup failed');
      const factory = context.evalCode(CONDITION_FACTORY, 'factory.js');
      if (factory.error) {
        factory.error.dispose();
        throw new SandboxError('SANDBOX_ERROR', 'sandbox setup failed');
      }
      const expected = conditionFunctionSource(this.source);
      const wrapped = `(${expected})`;
      // Syntax first, without running anything: a script that does not parse never executes.
      const parsed = context.evalCode(wrapped, 'condition.js', { compileOnly: true });
      if (parsed.error) {
        factory.value.dispose();
        const thrown = this.describe(context, parsed.error);
        parsed.error.dispose();
        throw compileError(thrown, this.limits);
      }
      parsed.value.dispose();
      this.deadline = Date.now() + SETUP_TIMEOUT_MS;
      const compiled = this.evaluate(context, wrapped, 'condition.js', null, () => factory.value.dispose());
      const expectedHandle = context.newString(expected);
      const made = context.callFunction(factory.value, context.undefined, compiled, expectedHandle);
      expectedHandle.dispose();
      compiled.dispose();
      factory.value.dispose();
      if (made.error) {
        const thrown = this.describe(context, made.error);
        made.error.dispose();
        throw compileError(thrown, this.limits);
      }
      vm.run = made.value;
      return vm;
    } catch (error) {
      if (!(error instanceof SandboxError)) throw this.abandon(vm, error);
      context.dispose();
      runtime.dispose();
      throw error;
    }
  }

  /** Evaluates setup code; a throw becomes a `SandboxError` (`setupFailure` names it, else a compile error). */
  private evaluate(
    context: QuickJSContext,
    code: string,
    filename: string,
    setupFailure: string | null,
    onError?: () => void,
  ): QuickJSHandle {
    const result = context.evalCode(code, filename);
    if (!result.error) return result.value;
    onError?.();
    const thrown = this.describe(context, result.error);
    result.error.dispose();
    if (setupFailure)
      throw new SandboxError('SANDBOX_ERROR', `${setupFailure}: ${thrown.name}: ${thrown.message}`);
    throw compileError(thrown, this.limits);
  }

  /**
   * The host failed while QuickJS ran: the instance cannot be trusted (freeing anything in it may abort
   * it), so the runtime is dropped unfreed and the instance is handed over to the slot's spare.
   */
  private abandon(vm: Vm, hostError: unknown): SandboxError {
    if (this.vm === vm) this.vm = null;
    this.modules.abandon(vm.module);
    const stack = hostError instanceof RangeError;
    return new SandboxError(
      stack ? 'SANDBOX_MEMORY' : 'SANDBOX_ERROR',
      stack
        ? `the script exhausted the host stack (runaway recursion) before its stack limit of ${this.limits.stackSizeBytes} bytes; the sandbox was restarted`
        : `the sandbox failed: ${hostError instanceof Error ? hostError.message : String(hostError)}; it was restarted`,
    );
  }

  /** Frees runtime and context (the next run recreates them). */
  private reset(): void {
    const vm = this.vm;
    this.vm = null;
    if (!vm || vm.module !== this.modules.current()) return; // an abandoned instance is never touched again
    try {
      vm.run.dispose();
      vm.context.dispose();
      vm.runtime.dispose();
    } catch {
      this.modules.abandon(vm.module); // QuickJS aborted while freeing: the instance is gone
    }
  }

  /** Reads name and message of a thrown value without trusting it (its getters run under a short deadline). */
  private describe(context: QuickJSContext, error: QuickJSHandle): Thrown {
    this.deadline = Date.now() + DESCRIBE_TIMEOUT_MS;
    try {
      const type = context.typeof(error);
      if (type === 'object') {
        if (isNullHandle(context, error)) return { name: 'null', message: 'null was thrown' };
        return { name: readString(context, error, 'name'), message: readString(context, error, 'message') };
      }
      if (type === 'string') return { name: 'thrown string', message: context.getString(error) };
      if (type === 'number') return { name: 'thrown number', message: String(context.getNumber(error)) };
      return { name: `thrown ${type}`, message: '' };
    } catch {
      return { name: 'Error', message: 'unreadable error' };
    }
  }
}

function isNullHandle(context: QuickJSContext, handle: QuickJSHandle): boolean {
  return context.sameValue(handle, context.null);
}

function readString(context: QuickJSContext, object: QuickJSHandle, key: string): string {
  const handle = context.getProp(object, key);
  try {
    return context.typeof(handle) === 'string' ? context.getString(handle) : '';
  } finally {
    handle.dispose();
  }
}

function classify(thrown: Thrown): SandboxErrorCode {
  if (thrown.name === 'InternalError') {
    if (thrown.message === 'interrupted') return 'SANDBOX_TIMEOUT';
    if (/out of memory|stack overflow|string too long|too many/i.test(thrown.message))
      return 'SANDBOX_MEMORY';
  }
  if (thrown.name === 'null') return 'SANDBOX_MEMORY'; // QuickJS throws null when it cannot even allocate the error
  if (thrown.name === 'RangeError' && /invalid array length|out of memory/i.test(thrown.message))
    return 'SANDBOX_MEMORY';
  return 'SANDBOX_ERROR';
}

function compileError(thrown: Thrown, limits: ResolvedSandboxLimits): SandboxError {
  const code = classify(thrown);
  return new SandboxError(
    code,
    code === 'SANDBOX_ERROR'
      ? `the script does not compile: ${thrown.name}: ${thrown.message}`
      : messageOf(code, thrown, limits),
  );
}

function messageOf(code: SandboxErrorCode, thrown: Thrown, limits: ResolvedSandboxLimits): string {
  switch (code) {
    case 'SANDBOX_TIMEOUT':
      return `the script ran longer than ${limits.timeoutMs} ms and was stopped`;
    case 'SANDBOX_MEMORY':
      return /stack/i.test(thrown.message)
        ? `the script exceeded its stack limit of ${limits.stackSizeBytes} bytes (runaway recursion)`
        : `the script exceeded its memory limit of ${limits.memoryLimitBytes} bytes (${thrown.message || 'out of memory'})`;
    default:
      return `the script threw ${thrown.name}${thrown.message ? `: ${thrown.message}` : ''}`;
  }
}

function toJsonArguments(input: unknown, facts: unknown): string {
  try {
    return `[${JSON.stringify(input ?? null)},${JSON.stringify(facts ?? null)}]`;
  } catch (error) {
    throw new SandboxError(
      'SANDBOX_ERROR',
      `the script's input is not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
