import { effectiveLimits, isUnlimited, parseTier, pickOverrides, TIER_PRESETS } from './tiers';

describe('tier presets and overrides', () => {
  it('grow from Free to Enterprise, Enterprise without a daily cap', () => {
    expect(TIER_PRESETS.Free).toEqual({
      maxConcurrentExecutions: 5,
      maxEvaluationsPerMinute: 600,
      maxEvaluationsPerDay: 50_000,
    });
    expect(TIER_PRESETS.Licensed.maxEvaluationsPerMinute).toBe(60_000);
    expect(TIER_PRESETS.Enterprise.maxEvaluationsPerDay).toBeNull();
  });

  it('applies the preset, then every explicit override (null: explicitly unlimited)', () => {
    expect(effectiveLimits('Free', {})).toEqual(TIER_PRESETS.Free);
    expect(effectiveLimits('Free', { maxEvaluationsPerMinute: 10, maxEvaluationsPerDay: null })).toEqual({
      maxConcurrentExecutions: 5,
      maxEvaluationsPerMinute: 10,
      maxEvaluationsPerDay: null,
    });
    expect(effectiveLimits('Enterprise', { maxEvaluationsPerDay: 7 }).maxEvaluationsPerDay).toBe(7);
    expect(effectiveLimits('Free', { maxConcurrentExecutions: 0 }).maxConcurrentExecutions).toBe(0);
  });

  it('keeps only known limit names with integer or null values', () => {
    expect(
      pickOverrides({ maxConcurrentExecutions: 3, maxEvaluationsPerDay: null, tier: 'Enterprise', other: 1 }),
    ).toEqual({ maxConcurrentExecutions: 3, maxEvaluationsPerDay: null });
    expect(pickOverrides({ maxEvaluationsPerMinute: 1.5, maxEvaluationsPerDay: '9' })).toEqual({});
  });

  it('parses tier names case-insensitively and refuses others', () => {
    expect(parseTier('licensed')).toBe('Licensed');
    expect(parseTier(' Enterprise ')).toBe('Enterprise');
    expect(parseTier('Platinum')).toBeUndefined();
    expect(parseTier(3)).toBeUndefined();
  });

  it('calls a tenant unlimited only when every limit is null', () => {
    expect(isUnlimited(effectiveLimits('Enterprise', {}))).toBe(false);
    expect(
      isUnlimited({
        maxConcurrentExecutions: null,
        maxEvaluationsPerMinute: null,
        maxEvaluationsPerDay: null,
      }),
    ).toBe(true);
  });
});
