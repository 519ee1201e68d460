import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';

/** A version's transition, as the hooks see it: inside the transaction that makes it. */
export interface VersionTransition {
  tenantId: string;
  workflowName: string;
  version: number;
  action: 'approve' | 'activate';
  /** The stored document of the version (what is being approved or activated). */
  document: unknown;
  actor: string;
  at: Date;
}

/**
 * What another feature does when a version is approved or activated, in the same transaction; the
 * returned note (if any) is added to that transition's signed audit entry (`detail`).
 */
export interface LifecycleHook {
  onTransition(m: EntityManager, transition: VersionTransition): Promise<string | null>;
}

/**
 * The hooks registered by other features (the copilot provenance) on approval and activation. The rule
 * set module does not know them: a feature registers itself at startup (`register`).
 */
@Injectable()
export class LifecycleHooks {
  private readonly hooks: LifecycleHook[] = [];

  register(hook: LifecycleHook): void {
    if (!this.hooks.includes(hook)) this.hooks.push(hook);
  }

  /** Runs every hook in order; the notes they return, in order. */
  async run(m: EntityManager, transition: VersionTransition): Promise<string[]> {
    const notes: string[] = [];
    for (const hook of this.hooks) {
      const note = await hook.onTransition(m, transition);
      if (note) notes.push(note);
    }
    return notes;
  }
}

/** The audit `detail` of a transition: the operator's detail, then the hooks' notes. */
export function withNotes(detail: string | null, notes: string[]): string | null {
  if (!notes.length) return detail;
  return [detail, ...notes].filter((part) => part && part.trim()).join(' | ');
}
