import { Decimal, parseDate, parseDuration } from '@arbiter/feel';
import {
  HIT_POLICY_VIOLATED,
  MatchedRules,
  aggregate,
  aggregationOf,
  isSingleHit,
  noMatchValue,
  normalizeHitPolicy,
  orderRules,
  outputRank,
  selectRule,
  toDmnHitPolicy,
} from './hit-policy';
import { FEEL_VALUES, JSON_VALUES, jsonEquals } from './output-values';
import { HIT_POLICIES, HitPolicy } from './types';

/** Rules 0..n-1 with these outputs and ranks (smaller rank first; equal ranks tie). */
function rules(outputs: unknown[], ranks: number[] = outputs.map(() => 0)): MatchedRules {
  return { output: (r) => outputs[r], compareRank: (a, b) => ranks[a] - ranks[b] };
}

describe('hit policy names', () => {
  it.each([
    ['U', undefined, 'Unique'],
    ['UNIQUE', undefined, 'Unique'],
    ['A', undefined, 'Any'],
    ['first', undefined, 'First'],
    ['P', undefined, 'Priority'],
    ['RULE ORDER', undefined, 'RuleOrder'],
    ['rule_order', undefined, 'RuleOrder'],
    ['OUTPUT ORDER', undefined, 'OutputOrder'],
    ['COLLECT', undefined, 'Collect'],
    ['COLLECT', '', 'Collect'],
    ['COLLECT', 'SUM', 'CollectSum'],
    ['C', 'min', 'CollectMin'],
    ['COLLECT', ' MAX ', 'CollectMax'],
    ['COLLECT', 'COUNT', 'CollectCount'],
    ['C+', undefined, 'CollectSum'],
    ['C<', undefined, 'CollectMin'],
    ['C>', undefined, 'CollectMax'],
    ['C#', undefined, 'CollectCount'],
    ['All', undefined, 'All'],
    ['CollectSum', undefined, 'CollectSum'],
  ])('%s %s is %s', (name, aggregation, policy) => {
    expect(normalizeHitPolicy(name, aggregation)).toBe(policy);
  });

  it('refuses unknown names and aggregations', () => {
    expect(normalizeHitPolicy('SOMETIMES')).toBeNull();
    expect(normalizeHitPolicy('COLLECT', 'AVG')).toBeNull();
    expect(normalizeHitPolicy(42)).toBeNull();
  });

  it('writes every policy back in DMN notation that reads as the same policy', () => {
    for (const policy of HIT_POLICIES) {
      const { hitPolicy, aggregation } = toDmnHitPolicy(policy);
      expect(normalizeHitPolicy(hitPolicy, aggregation)).toBe(policy === 'All' ? 'RuleOrder' : policy);
    }
  });

  it('classifies single-hit policies and aggregations', () => {
    expect(HIT_POLICIES.filter(isSingleHit)).toEqual(['Unique', 'Any', 'First', 'Priority']);
    expect(HIT_POLICIES.map(aggregationOf).filter(Boolean)).toEqual(['SUM', 'MIN', 'MAX', 'COUNT']);
  });
});

describe('selectRule (single-hit policies)', () => {
  const three = rules(['a', 'b', 'a'], [2, 1, 1]);

  it('Unique: the one match, or a violation for several', () => {
    expect(selectRule('Unique', [1], 1, three, JSON_VALUES)).toBe(1);
    expect(selectRule('Unique', [0, 2], 2, three, JSON_VALUES)).toBe(HIT_POLICY_VIOLATED);
  });

  it('Any: the first match when every output agrees, else a violation', () => {
    expect(selectRule('Any', [0, 2], 2, three, JSON_VALUES)).toBe(0);
    expect(selectRule('Any', [0, 1, 2], 3, three, JSON_VALUES)).toBe(HIT_POLICY_VIOLATED);
    expect(selectRule('Any', [1], 1, three, JSON_VALUES)).toBe(1);
  });

  it('Any compares with the value semantics: JSON deep equality, FEEL equality', () => {
    const records = rules([{ x: [1, { y: 'z' }] }, { x: [1, { y: 'z' }] }, { x: [1] }]);
    expect(selectRule('Any', [0, 1], 2, records, JSON_VALUES)).toBe(0);
    expect(selectRule('Any', [0, 2], 2, records, JSON_VALUES)).toBe(HIT_POLICY_VIOLATED);
    const feel = rules([new Decimal('1.0'), 1, '1']);
    expect(selectRule('Any', [0, 1], 2, feel, FEEL_VALUES)).toBe(0);
    expect(selectRule('Any', [0, 2], 2, feel, FEEL_VALUES)).toBe(HIT_POLICY_VIOLATED);
  });

  it('Any compares the first output with itself too: under FEEL, one holding NaN is a violation', () => {
    const odd = rules([{ x: NaN }]);
    expect(selectRule('Any', [0], 1, odd, FEEL_VALUES)).toBe(HIT_POLICY_VIOLATED);
    expect(selectRule('Any', [0], 1, odd, JSON_VALUES)).toBe(0);
  });

  it('First: the first match in rule order', () => {
    expect(selectRule('First', [1, 2], 2, three, JSON_VALUES)).toBe(1);
  });

  it('Priority: the best rank, ties in rule order', () => {
    expect(selectRule('Priority', [0, 1, 2], 3, three, JSON_VALUES)).toBe(1);
    expect(selectRule('Priority', [0, 2], 2, three, JSON_VALUES)).toBe(2);
    expect(selectRule('Priority', [0], 1, three, JSON_VALUES)).toBe(0);
  });

  it('reads only `count` matches of a reused buffer', () => {
    const buffer = Int32Array.of(1, 0, 2);
    expect(selectRule('Unique', buffer, 1, three, JSON_VALUES)).toBe(1);
    expect(selectRule('Any', buffer, 1, three, JSON_VALUES)).toBe(1);
    expect(selectRule('Priority', buffer, 2, three, JSON_VALUES)).toBe(1);
  });
});

describe('orderRules (multi-hit policies)', () => {
  const four = rules(['w', 'x', 'y', 'z'], [3, 1, 3, 0]);

  it('OutputOrder sorts by rank, ties in rule order, into a new array', () => {
    const matched = [0, 1, 2, 3];
    const ordered = orderRules('OutputOrder', matched, 4, four);
    expect(Array.from(ordered)).toEqual([3, 1, 0, 2]);
    expect(matched).toEqual([0, 1, 2, 3]);
    expect(Array.from(orderRules('OutputOrder', Int32Array.of(0, 2, 1, 3), 3, four))).toEqual([1, 0, 2]);
  });

  it.each(['RuleOrder', 'Collect', 'All', 'CollectSum', 'CollectMin', 'CollectMax', 'CollectCount'] as const)(
    '%s keeps rule order (the same array)',
    (policy) => {
      const matched = [0, 1, 3];
      expect(orderRules(policy, matched, 3, four)).toBe(matched);
    },
  );
});

describe('noMatchValue', () => {
  it.each([
    ['Unique', null],
    ['Any', null],
    ['First', null],
    ['Priority', null],
    ['CollectSum', null],
    ['CollectMin', null],
    ['CollectMax', null],
    ['CollectCount', 0],
    ['Collect', []],
    ['All', []],
    ['RuleOrder', []],
    ['OutputOrder', []],
  ] as [HitPolicy, unknown][])('%s gives %j', (policy, value) => {
    expect(noMatchValue(policy)).toEqual(value);
  });

  it('gives a new list each time', () => {
    expect(noMatchValue('Collect')).not.toBe(noMatchValue('Collect'));
  });
});

describe('outputRank', () => {
  it('is the index in the output value list, after it when absent, 0 without a list', () => {
    expect(outputRank(['high', 'mid', 'low'], 'mid', JSON_VALUES)).toBe(1);
    expect(outputRank(['high', 'mid', 'low'], 'none', JSON_VALUES)).toBe(3);
    expect(outputRank(['high'], null, JSON_VALUES)).toBe(1);
    expect(outputRank(undefined, 'mid', JSON_VALUES)).toBe(0);
    expect(outputRank(null, 'mid', JSON_VALUES)).toBe(0);
    expect(outputRank([1, 2], new Decimal('2.0'), FEEL_VALUES)).toBe(1);
    expect(outputRank([{ a: 1 }, { a: 2 }], { a: 2 }, JSON_VALUES)).toBe(1);
  });
});

/** aggregate over a whole list */
const agg = (aggregation: 'SUM' | 'MIN' | 'MAX' | 'COUNT', outputs: unknown[], values: typeof JSON_VALUES) =>
  aggregate(aggregation, outputs, outputs.length, values);

describe('aggregate', () => {
  it('aggregates only the first `count` outputs of a reused buffer', () => {
    expect(aggregate('SUM', [1, 2, 'stale'], 2, JSON_VALUES)).toBe(3);
    expect(aggregate('COUNT', [1, 2, 3], 2, FEEL_VALUES)).toBe(2);
    expect(aggregate('MAX', [1, 2, 9], 2, FEEL_VALUES)).toBe(2);
    expect(aggregate('SUM', [new Decimal(1), null, 'stale'], 2, FEEL_VALUES)).toBe(1);
  });

  describe('with JSON values (the table API)', () => {
    it('SUM adds numbers and skips nulls', () => {
      expect(agg('SUM', [1, null, 2.5, undefined, 3], JSON_VALUES)).toBe(6.5);
      expect(agg('SUM', [-0], JSON_VALUES)).toBe(0);
    });
    it('SUM of no value, or over a non-number, is null', () => {
      expect(agg('SUM', [], JSON_VALUES)).toBeNull();
      expect(agg('SUM', [null, null], JSON_VALUES)).toBeNull();
      expect(agg('SUM', [1, '2'], JSON_VALUES)).toBeNull();
      expect(agg('SUM', [1, true], JSON_VALUES)).toBeNull();
    });
    it('MIN / MAX over numbers or over strings', () => {
      expect(agg('MIN', [3, null, 1, 2], JSON_VALUES)).toBe(1);
      expect(agg('MAX', [3, null, 1, 7], JSON_VALUES)).toBe(7);
      expect(agg('MIN', ['b', 'a', 'c'], JSON_VALUES)).toBe('a');
      expect(agg('MAX', ['b', 'a', 'c'], JSON_VALUES)).toBe('c');
    });
    it('MIN / MAX of no value, of mixed types or of two non-orderable values is null', () => {
      expect(agg('MIN', [], JSON_VALUES)).toBeNull();
      expect(agg('MAX', [null], JSON_VALUES)).toBeNull();
      expect(agg('MIN', [1, 'a'], JSON_VALUES)).toBeNull();
      expect(agg('MAX', [true, false], JSON_VALUES)).toBeNull();
      expect(agg('MIN', [{ a: 1 }, 1], JSON_VALUES)).toBeNull();
    });
    it('MIN / MAX of a lone value is that value, whatever its type', () => {
      const only = { a: 1 };
      expect(agg('MIN', [null, only], JSON_VALUES)).toBe(only);
      expect(agg('MAX', [true], JSON_VALUES)).toBe(true);
    });
    it('COUNT counts non-null values', () => {
      expect(agg('COUNT', [1, null, 'x', undefined, false], JSON_VALUES)).toBe(3);
      expect(agg('COUNT', [], JSON_VALUES)).toBe(0);
    });
  });

  describe('with FEEL values (DMN)', () => {
    it('SUM adds FEEL numbers exactly and skips nulls', () => {
      const sum = agg('SUM', [new Decimal('0.1'), null, new Decimal('0.2')], FEEL_VALUES);
      expect(sum).toEqual(new Decimal('0.3'));
      expect(agg('SUM', [1, 2, null], FEEL_VALUES)).toBe(3);
    });
    it('SUM of no value, or over a non-number, is null', () => {
      expect(agg('SUM', [], FEEL_VALUES)).toBeNull();
      expect(agg('SUM', [null], FEEL_VALUES)).toBeNull();
      expect(agg('SUM', [1, 'a'], FEEL_VALUES)).toBeNull();
    });
    it('MIN / MAX order numbers, strings, dates and durations', () => {
      expect(agg('MIN', [new Decimal('2.5'), 1, null, 3], FEEL_VALUES)).toBe(1);
      expect(agg('MAX', [new Decimal('2.5'), 1, 2], FEEL_VALUES)).toEqual(new Decimal('2.5'));
      expect(agg('MAX', ['a', 'c', 'b'], FEEL_VALUES)).toBe('c');
      const [early, late] = [parseDate('2020-01-01'), parseDate('2021-06-30')];
      expect(agg('MIN', [late, early], FEEL_VALUES)).toBe(early);
      const [day, hour] = [parseDuration('P1D'), parseDuration('PT1H')];
      expect(agg('MAX', [hour, day], FEEL_VALUES)).toBe(day);
    });
    it('MIN / MAX of no value, of mixed types, or of a lone non-orderable value is null', () => {
      expect(agg('MIN', [null], FEEL_VALUES)).toBeNull();
      expect(agg('MIN', [1, 'a'], FEEL_VALUES)).toBeNull();
      expect(agg('MAX', [true], FEEL_VALUES)).toBeNull();
      expect(agg('MIN', [{ a: 1 }], FEEL_VALUES)).toBeNull();
    });
    it('COUNT counts every matched rule, null outputs included', () => {
      expect(agg('COUNT', [1, null, 'x'], FEEL_VALUES)).toBe(3);
      expect(agg('COUNT', [], FEEL_VALUES)).toBe(0);
    });
  });
});

describe('jsonEquals', () => {
  it('compares JSON deeply, numbers as FEEL numbers', () => {
    expect(jsonEquals({ a: [1, { b: null }] }, { a: [1, { b: null }] })).toBe(true);
    expect(jsonEquals({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(jsonEquals([1], { 0: 1 })).toBe(false);
    expect(jsonEquals('1', 1)).toBe(false);
  });
});
