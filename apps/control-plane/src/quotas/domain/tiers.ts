/** The tiers a tenant can be on (the same names as `ControlPlaneRuntimeInfo:Tier`). */
export const TIERS = ['Free', 'Licensed', 'Enterprise'] as const;
export type Tier = (typeof TIERS)[number];

/** The limits a tenant runs under; `null` means unlimited. */
export interface QuotaLimits {
  /** Rule executions in flight at once, across every replica. */
  maxConcurrentExecutions: number | null;
  /** Rule evaluations per UTC minute (a fixed window: hh:mm:00 to hh:mm+1:00). */
  maxEvaluationsPerMinute: number | null;
  /** Rule evaluations per UTC day (00:00 to 24:00). */
  maxEvaluationsPerDay: number | null;
}

export const LIMIT_NAMES = [
  'maxConcurrentExecutions',
  'maxEvaluationsPerMinute',
  'maxEvaluationsPerDay',
] as const satisfies readonly (keyof QuotaLimits)[];
export type LimitName = (typeof LIMIT_NAMES)[number];

/** Explicit per-tenant limits: a name that is present wins over the tier (null: explicitly unlimited). */
export type LimitOverrides = Partial<QuotaLimits>;

/**
 * Preset profile of each tier (the spec leaves the numbers open). Roughly ×10 per step on
 * concurrency, ×100 on throughput; a Free tenant gets 10 evaluations a second sustained, a Licensed
 * one 1,000, an Enterprise one 20,000 with no daily cap.
 */
export const TIER_PRESETS: Readonly<Record<Tier, Readonly<QuotaLimits>>> = {
  Free: { maxConcurrentExecutions: 5, maxEvaluationsPerMinute: 600, maxEvaluationsPerDay: 50_000 },
  Licensed: {
    maxConcurrentExecutions: 50,
    maxEvaluationsPerMinute: 60_000,
    maxEvaluationsPerDay: 10_000_000,
  },
  Enterprise: {
    maxConcurrentExecutions: 500,
    maxEvaluationsPerMinute: 1_200_000,
    maxEvaluationsPerDay: null,
  },
};

/** The tier named `name` (case-insensitive), or undefined. */
export function parseTier(name: unknown): Tier | undefined {
  if (typeof name !== 'string') return undefined;
  const wanted = name.trim().toLowerCase();
  return TIERS.find((t) => t.toLowerCase() === wanted);
}

/** Effective limits: the tier's preset, then each explicit override on top. */
export function effectiveLimits(tier: Tier, overrides: LimitOverrides): QuotaLimits {
  const limits: QuotaLimits = { ...TIER_PRESETS[tier] };
  for (const name of LIMIT_NAMES) if (name in overrides) limits[name] = overrides[name] ?? null;
  return limits;
}

/** Only the known limit names, with integer-or-null values (what is stored). */
export function pickOverrides(source: Record<string, unknown>): LimitOverrides {
  const overrides: LimitOverrides = {};
  for (const name of LIMIT_NAMES) {
    const value = source[name];
    if (value === null || (typeof value === 'number' && Number.isInteger(value))) overrides[name] = value;
  }
  return overrides;
}

/** No limit at all: the gate never touches the database for such a tenant on the hot path. */
export function isUnlimited(limits: QuotaLimits): boolean {
  return LIMIT_NAMES.every((name) => limits[name] === null);
}
