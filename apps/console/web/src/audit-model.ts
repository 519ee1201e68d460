/** The verification answer of `GET …/audit/verify`: the tenant's whole chain (a workflow's entries are links of it). */
export interface Verification {
  valid: boolean;
  tenantId: string;
  entriesChecked: number;
  firstBadEntry: { seq: number; workflowName?: string; action?: string; version?: number } | null;
  reason: string | null;
  headSeq: number | null;
  keyId: string | null;
}

export interface Verdict {
  colour: string;
  label: string;
}

/**
 * What the chain verification says about one entry: the service checks every entry in order and stops
 * at the first bad one, so entries before it are verified, that entry is where the chain breaks, and the
 * entries after it are not proven either way.
 */
export function entryVerdict(
  entry: { seq: number; signature: string | null },
  verification: Verification | null,
): Verdict {
  if (!verification) return { colour: 'gray', label: 'checking…' };
  if (!entry.signature) return { colour: 'yellow', label: 'unsigned' };
  if (verification.headSeq !== null && entry.seq > verification.headSeq)
    return { colour: 'gray', label: 'newer than the check' };
  if (verification.valid) return { colour: 'green.9', label: 'signature ✓ chain ✓' };
  const bad = verification.firstBadEntry?.seq;
  if (bad === undefined) return { colour: 'red.9', label: 'not verified' };
  if (entry.seq < bad) return { colour: 'green.9', label: 'signature ✓ chain ✓' };
  if (entry.seq === bad) return { colour: 'red.9', label: `broken: ${verification.reason ?? 'bad entry'}` };
  return { colour: 'orange', label: 'after the break' };
}

/** The spec's shadow severities: none green, medium yellow, high red. */
export function severityColour(severity: string | undefined): string {
  switch (severity) {
    case 'none':
      return 'green.9';
    case 'medium':
      return 'yellow.5';
    case 'high':
      return 'red.9';
    default:
      return 'gray';
  }
}
