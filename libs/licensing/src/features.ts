/** The capability keys the platform gates on (embedded verbatim in activation proofs). */
export const CAPABILITIES = {
  designer: 'pdf.designer',
  registry: 'pdf.registry',
  canary: 'pdf.canary',
} as const;

/** The wildcard feature of Enterprise licenses: it passes every gate. */
export const ALL_FEATURES = '*';

export type LicenseTier = 'Free' | 'Licensed' | 'Enterprise';
export const LICENSE_TIERS: readonly LicenseTier[] = ['Free', 'Licensed', 'Enterprise'];

/** `allowedFeatures` of a new key when the request omits them (spec 3, part A). */
export const DEFAULT_FEATURES_BY_TIER: Readonly<Record<LicenseTier, readonly string[]>> = {
  Free: ['api.validate'],
  Licensed: ['vsix.publish', 'vsix.watch', 'vsix.explorer', 'api.validate', 'cp.publish'],
  Enterprise: [ALL_FEATURES],
};

/** Whether `features` grant `feature`: listed verbatim, or `*`. */
export function hasFeature(features: readonly string[] | undefined, feature: string): boolean {
  if (!features) return false;
  for (const f of features) if (f === ALL_FEATURES || f === feature) return true;
  return false;
}

/** A feature key: 1-64 of letters, digits, `. _ -`, or `*`. */
export const FEATURE_KEY = /^(\*|[A-Za-z0-9][A-Za-z0-9._-]{0,63})$/;

/** `features` with `add` added and `remove` removed, de-duplicated, in a stable order. */
export function updateFeatures(
  features: readonly string[],
  add: readonly string[] = [],
  remove: readonly string[] = [],
): string[] {
  const removed = new Set(remove);
  const out: string[] = [];
  for (const f of [...features, ...add]) if (!removed.has(f) && !out.includes(f)) out.push(f);
  return out;
}
