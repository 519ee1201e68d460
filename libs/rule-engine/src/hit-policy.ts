import { HIT_POLICIES, HitPolicy } from './types';

const ALIASES: Record<string, HitPolicy> = {
  U: 'Unique',
  UNIQUE: 'Unique',
  A: 'Any',
  ANY: 'Any',
  F: 'First',
  FIRST: 'First',
  ALL: 'All',
  C: 'Collect',
  COLLECT: 'Collect',
  R: 'RuleOrder',
  RULEORDER: 'RuleOrder',
  O: 'OutputOrder',
  OUTPUTORDER: 'OutputOrder',
  P: 'Priority',
  PRIORITY: 'Priority',
  'C+': 'CollectSum',
  COLLECTSUM: 'CollectSum',
  'C<': 'CollectMin',
  COLLECTMIN: 'CollectMin',
  'C>': 'CollectMax',
  COLLECTMAX: 'CollectMax',
  'C#': 'CollectCount',
  COLLECTCOUNT: 'CollectCount',
};

/**
 * Canonical hit policy name from our names (`RuleOrder`), DMN names (`RULE ORDER`), DMN letters
 * (`U`, `C+`) or DMN hit policy + aggregation (`COLLECT` + `SUM`). Null when unknown.
 */
export function normalizeHitPolicy(hitPolicy: unknown, aggregation?: string | null): HitPolicy | null {
  if (typeof hitPolicy !== 'string') return null;
  const key = hitPolicy.toUpperCase().replace(/[\s_-]+/g, '');
  const policy = ALIASES[key];
  if (!policy) return null;
  if (policy === 'Collect' && aggregation) {
    return ALIASES['COLLECT' + aggregation.toUpperCase().trim()] ?? null;
  }
  return policy;
}

export const isHitPolicy = (v: unknown): v is HitPolicy => HIT_POLICIES.includes(v as HitPolicy);

/** Policies whose result is one row (or a violation). */
export function isSingleHit(policy: HitPolicy): boolean {
  return policy === 'Unique' || policy === 'Any' || policy === 'First' || policy === 'Priority';
}

export function aggregationOf(policy: HitPolicy): 'SUM' | 'MIN' | 'MAX' | 'COUNT' | null {
  switch (policy) {
    case 'CollectSum':
      return 'SUM';
    case 'CollectMin':
      return 'MIN';
    case 'CollectMax':
      return 'MAX';
    case 'CollectCount':
      return 'COUNT';
    default:
      return null;
  }
}

/** DMN 1.3 notation of a hit policy: `hitPolicy` attribute and `aggregation`. */
export function toDmnHitPolicy(policy: HitPolicy): { hitPolicy: string; aggregation?: string } {
  const agg = aggregationOf(policy);
  if (agg) return { hitPolicy: 'COLLECT', aggregation: agg };
  switch (policy) {
    case 'RuleOrder':
      return { hitPolicy: 'RULE ORDER' };
    case 'OutputOrder':
      return { hitPolicy: 'OUTPUT ORDER' };
    case 'All':
      return { hitPolicy: 'RULE ORDER' };
    default:
      return { hitPolicy: policy.toUpperCase() };
  }
}

/** Lexicographic comparison of priority keys (smaller index in the output value lists wins). */
export function comparePriority(a: ArrayLike<number>, b: ArrayLike<number>): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
