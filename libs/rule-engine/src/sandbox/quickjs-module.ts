import {
  RELEASE_SYNC,
  getQuickJS,
  newQuickJSWASMModuleFromVariant,
  type QuickJSSyncVariant,
  type QuickJSWASMModule,
} from 'quickjs-emscripten';

/**
 * The release-sync variant with its Emscripten loader `require`d: the stock variant loads it with a
 * dynamic `import()`, which CommonJS hosts that run without ESM support (Jest without
 * `--experimental-vm-modules`) cannot execute. Same files, same build.
 */
function requireVariant(): QuickJSSyncVariant {
  const loader = require('@jitl/quickjs-wasmfile-release-sync/emscripten-module') as unknown;
  return {
    ...RELEASE_SYNC,
    importModuleLoader: () => Promise.resolve(loader as never),
  } as QuickJSSyncVariant;
}

/** A new QuickJS WebAssembly instance (its own linear memory: nothing is shared with other instances). */
export async function newQuickJSModule(): Promise<QuickJSWASMModule> {
  let variant: QuickJSSyncVariant;
  try {
    variant = requireVariant();
  } catch {
    return getQuickJS();
  }
  return newQuickJSWASMModuleFromVariant(variant);
}

/**
 * The QuickJS instance every condition of a sandbox runs in, and a spare loaded ahead of need.
 *
 * When the host's own stack overflows while QuickJS runs (a recursion deep enough that V8's frames run
 * out before QuickJS's stack check fires), the exception unwinds through WebAssembly and leaves the
 * instance's stack pointer and runtime lists inconsistent: freeing anything in it can abort the whole
 * instance. Such an instance is abandoned, never freed: the spare takes over at once (synchronously)
 * and another spare is loaded in the background.
 */
export class QuickJSModuleSlot {
  private spare: QuickJSWASMModule | null;
  private refilling: Promise<void> | null = null;
  private brokenWithoutSpare = false;
  /** Instances given up so far (a metric for operators; each one is a hostile or runaway script). */
  replacements = 0;

  private constructor(
    private module: QuickJSWASMModule,
    spare: QuickJSWASMModule,
  ) {
    this.spare = spare;
  }

  static async create(): Promise<QuickJSModuleSlot> {
    const [module, spare] = await Promise.all([newQuickJSModule(), newQuickJSModule()]);
    return new QuickJSModuleSlot(module, spare);
  }

  /** The instance to create runtimes in, or null while a broken instance waits for its replacement. */
  current(): QuickJSWASMModule | null {
    return this.brokenWithoutSpare ? null : this.module;
  }

  /** Gives `broken` up (when it is still the current instance) and switches to the spare. */
  abandon(broken: QuickJSWASMModule): void {
    if (broken !== this.module) return;
    this.replacements++;
    if (this.spare) {
      this.module = this.spare;
      this.spare = null;
    } else {
      this.brokenWithoutSpare = true;
    }
    this.refill();
  }

  /** Resolves when a spare is loaded again (tests; the sandbox never waits for it). */
  ready(): Promise<void> {
    return this.refilling ?? Promise.resolve();
  }

  private refill(): void {
    if (this.refilling || (this.spare && !this.brokenWithoutSpare)) return;
    this.refilling = newQuickJSModule().then(
      (loaded) => {
        if (this.brokenWithoutSpare) {
          this.module = loaded;
          this.brokenWithoutSpare = false;
        } else {
          this.spare = loaded;
        }
        this.refilling = null;
        this.refill();
      },
      () => {
        this.refilling = null;
        setTimeout(() => this.refill(), 1_000).unref();
      },
    );
  }
}
