import { FailedParameter, LambdaRuntimeError, LambdaSyntaxError, compileLambda } from '.';

const facts = {
  country: 'india',
  loyaltyFactor: 2,
  totalPurchasesToDate: 6000,
  name: '  Ada Lovelace ',
  empty: '',
  blank: '   ',
  nothing: null,
  vip: true,
  amount: 12.5,
  zero: 0,
  tags: ['gold', 'eu'],
  nums: [3, 1, 2],
  mixed: [1, null, 4],
  orders: [
    {
      id: 'a',
      total: 120,
      lines: [
        { qty: 1, price: 100 },
        { qty: 2, price: 10 },
      ],
    },
    { id: 'b', total: 30, lines: [] },
    { id: 'c', total: 300, lines: [{ qty: 3, price: 100 }] },
  ],
  address: { city: 'Pune', zip: '411001', geo: null },
  dict: { 'key with space': 7 },
  joined: '2020-02-29',
  when: '2024-05-01T10:00:00Z',
  numText: '42',
  decText: '-3.5',
};

function run(
  source: string,
  scope: Record<string, unknown> = facts,
  params?: Record<string, unknown>,
): unknown {
  return compileLambda(source, params ? Object.keys(params) : [])(scope, params);
}

function failure(source: string, scope: Record<string, unknown> = facts): string {
  try {
    run(source, scope);
  } catch (e) {
    expect(e).toBeInstanceOf(LambdaRuntimeError);
    return (e as Error).message;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('compileLambda: the RulesEngine discount sample', () => {
  const discount10 =
    'input1.country == "india" AND input1.loyaltyFactor <= 2 AND input1.totalPurchasesToDate >= 5000';
  const discount20 =
    'input1.country == "india" AND input1.loyaltyFactor >= 3 AND input1.totalPurchasesToDate >= 10000';
  it('reads input1 as the facts when the facts have no input1 key', () => {
    expect(run(discount10)).toBe(true);
    expect(run(discount20)).toBe(false);
  });
  it('reads input1 from the facts when they carry it (several inputs)', () => {
    const multi = { input1: { ...facts, loyaltyFactor: 3, totalPurchasesToDate: 20000 }, input2: { n: 1 } };
    expect(run(discount20, multi)).toBe(true);
    expect(run('input2.n == 1', multi)).toBe(true);
  });
  it('binds input too', () => expect(run('input.country == "india"')).toBe(true));
  it('compiles once and evaluates many times against different facts', () => {
    const fn = compileLambda(discount10);
    expect(fn({ country: 'india', loyaltyFactor: 1, totalPurchasesToDate: 5000 })).toBe(true);
    expect(fn({ country: 'India', loyaltyFactor: 1, totalPurchasesToDate: 5000 })).toBe(false); // ordinal
    expect(fn({ country: 'india', loyaltyFactor: 1, totalPurchasesToDate: 4999 })).toBe(false);
  });
});

describe('compileLambda: identifiers and parameters', () => {
  it('reads top-level facts by name', () => expect(run('loyaltyFactor + 1')).toBe(3));
  it('fails on an unknown identifier, naming it and its column', () =>
    expect(failure('country == "india" && missing > 1')).toBe("unknown identifier 'missing' at column 23"));
  it('does not take input2 as the facts', () =>
    expect(failure('input2.x')).toMatch(/unknown identifier 'input2'/));
  it('never resolves names from Object.prototype', () => {
    expect(failure('constructor')).toMatch(/unknown identifier 'constructor'/);
    expect(run('address.constructor')).toBeNull();
    expect(run('address.toString')).toBeNull();
    expect(run('address["__proto__"]')).toBeNull();
  });
  it('reads parameters before facts of the same name', () => {
    expect(run('country', facts, { country: 'fr' })).toBe('fr');
    expect(run('discount * 2', facts, { discount: 0.1 })).toBe(0.2);
  });
  it('falls back to facts when a declared parameter is not given', () => {
    const fn = compileLambda('country', ['country']);
    expect(fn(facts)).toBe('india');
    expect(fn(facts, {})).toBe('india');
  });
  it('fails an expression that reads a failed parameter', () => {
    const fn = compileLambda('p > 1', ['p']);
    expect(() => fn(facts, { p: new FailedParameter('p', 'boom') })).toThrow(
      "parameter 'p' failed: boom at column 1",
    );
  });
  it('treats a missing facts object as empty', () =>
    expect(compileLambda('input1 == null')(undefined as never)).toBe(false));
});

describe('compileLambda: literals and arithmetic', () => {
  it.each([
    ['1 + 2 * 3', 7],
    ['(1 + 2) * 3', 9],
    ['7 / 2', 3.5],
    ['7 % 4', 3],
    ['-amount', -12.5],
    ['+amount', 12.5],
    ['- -2', 2],
    ['2m * 1.5m', 3],
    ['10d - 2.5', 7.5],
    ['0x10 + 1', 17],
    ['"a" + "b"', 'ab'],
    ['"n=" + 5', 'n=5'],
    ['5 + "x"', '5x'],
    ['"v:" + vip', 'v:True'],
    ['"x" + nothing', 'x'],
    ['nothing + 1', null],
    ['1 * nothing', null],
    ['-nothing', null],
    ['"\\u00e9\\t"', 'é\t'],
  ])('%s → %p', (source, expected) => expect(run(source)).toBe(expected));
  it('fails on division by zero', () => {
    expect(failure('amount / zero')).toBe('attempted to divide by zero at column 8');
    expect(failure('5 % 0')).toBe('attempted to divide by zero at column 3');
  });
  it('fails on arithmetic with the wrong types', () => {
    expect(failure('vip + 1')).toBe("operator '+' cannot be applied to bool and number at column 5");
    expect(failure('country * 2')).toBe("operator '*' cannot be applied to string and number at column 9");
    expect(failure('-country')).toBe("operator '-' cannot be applied to string at column 1");
  });
});

describe('compileLambda: comparison with C# semantics', () => {
  it.each([
    ['country == "india"', true],
    ['country == "India"', false], // ordinal, case-sensitive
    ['country != "India"', true],
    ['country = "india"', true],
    ['country <> "india"', false],
    ['loyaltyFactor == 2.0', true],
    ['vip == true', true],
    ['nothing == null', true],
    ['null == nothing', true],
    ['nothing != null', false],
    ['country == null', false],
    ['address.missing == null', true],
    ['nothing < 1', false], // comparing null is false
    ['nothing >= 1', false],
    ['1 > nothing', false],
    ['nothing == 1', false],
    ['"apple" < "banana"', true],
    ['"B" < "a"', true], // ordinal: uppercase first
    ['amount > 12 && amount <= 12.5', true],
    ['tags == tags', true], // reference equality
    ['joined < "2021-01-01"', true], // ordinal on ISO strings
    ['DateTime.Parse(joined) < DateTime.Parse("2021-01-01")', true],
    ['DateTime.Now > joined', true], // ISO string as DateTime beside a DateTime
    ['DateTime.UtcNow >= "2100-01-01T00:00:00Z"', false],
    ['DateTime.Parse(when) == "2024-05-01T10:00:00Z"', true],
  ])('%s → %p', (source, expected) => expect(run(source)).toBe(expected));
  it('fails comparing values of different types, like the C# binder', () => {
    expect(failure('loyaltyFactor == "2"')).toBe(
      "operator '==' cannot be applied to number and string at column 15",
    );
    expect(failure('country > 1')).toBe("operator '>' cannot be applied to string and number at column 9");
    expect(failure('vip < true')).toBe("operator '<' cannot be applied to bool and bool at column 5");
    expect(failure('address == 1')).toBe("operator '==' cannot be applied to object and number at column 9");
    expect(failure('DateTime.Now > "soon"')).toBe(
      "operator '>' cannot be applied to DateTime and string at column 14",
    );
  });
});

describe('compileLambda: logic', () => {
  it.each([
    ['vip && country == "india"', true],
    ['vip AND NOT (country == "fr")', true],
    ['!vip || false', false],
    ['not vip or true', true],
    ['false && missing', false], // short-circuit: missing never read
    ['true || missing', true],
    ['vip ? "gold" : "std"', 'gold'],
    ['iif(loyaltyFactor > 5, "hi", "lo")', 'lo'],
    ['nothing ?? "fallback"', 'fallback'],
    ['country ?? "fallback"', 'india'],
    ['address.geo?.lat ?? 0', 0],
    ['!nothing', null],
  ])('%s → %p', (source, expected) => expect(run(source)).toBe(expected));
  it('needs bool operands', () => {
    expect(failure('country && vip')).toBe("operator '&&' needs bool operands, got string at column 1");
    expect(failure('vip && nothing')).toBe("operator '&&' needs bool operands, got null at column 8");
    expect(failure('nothing || vip')).toBe("operator '||' needs bool operands, got null at column 1");
    expect(failure('!country')).toBe("operator '!' cannot be applied to string at column 1");
    expect(failure('amount ? 1 : 2')).toBe("condition of '?:' must be a bool, got number at column 8");
  });
});

describe('compileLambda: members, indexers and null-conditional access', () => {
  it.each([
    ['address.city', 'Pune'],
    ['address.missing', null],
    ['address.geo', null],
    ['address?.city', 'Pune'],
    ['nothing?.city', null],
    ['nothing?.a.b.c', null], // the rest of the chain is skipped
    ['nothing?.ToString()', null],
    ['nothing?[0]', null],
    ['tags[1]', 'eu'],
    ['orders[0].lines[1].price', 10],
    ['address["zip"]', '411001'],
    ['dict["key with space"]', 7],
    ['address["nope"]', null],
    ['country[0]', 'i'],
    ['name.Length', 15],
    ['tags.Length', 2],
    ['tags.Count', 2],
    ['nothing.HasValue', false],
    ['amount.HasValue', true],
    ['amount.Value', 12.5],
    ['DateTime.Parse(joined).Year', 2020],
    ['DateTime.Parse(joined).Month', 2],
    ['DateTime.Parse(joined).Day', 29],
    ['DateTime.Parse(when).Hour', 10],
    ['joined.Year', 2020],
    ['address.Count', null], // an object has no Count: a missing property
  ])('%s → %p', (source, expected) => expect(run(source)).toEqual(expected));
  it('reads a property that shadows a special member', () =>
    expect(run('x.Count', { x: { Count: 5 } })).toBe(5));
  it('fails on member access of null, naming the member', () => {
    expect(failure('address.geo.lat')).toBe("null reference: cannot read 'lat' of null at column 13");
    expect(failure('nothing.Value')).toBe('nullable object must have a value at column 9');
    expect(failure('nothing.ToString()')).toBe("null reference: cannot call 'ToString' on null at column 9");
    expect(failure('nothing[0]')).toBe('null reference: cannot index null at column 8');
  });
  it('fails on members that do not exist on a value', () => {
    expect(failure('amount.Length')).toBe("number has no member 'Length' at column 8");
    expect(failure('country.city')).toBe("string has no member 'city' at column 9");
    expect(failure('tags.first')).toBe("collection has no member 'first' at column 6");
  });
  it('fails on bad indexes', () => {
    expect(failure('tags[2]')).toBe('index 2 is out of range (count 2) at column 5');
    expect(failure('tags[-1]')).toBe('index -1 is out of range (count 2) at column 5');
    expect(failure('tags["a"]')).toBe('collection index must be an integer, got string at column 5');
    expect(failure('address[0]')).toBe('object key must be a string, got number at column 8');
    expect(failure('amount[0]')).toBe('cannot index number at column 7');
  });
});

describe('compileLambda: string methods', () => {
  it.each([
    ['country.Contains("ndi")', true],
    ['country.Contains("NDI")', false],
    ['country.StartsWith("in")', true],
    ['country.EndsWith("ia")', true],
    ['country.ToUpper()', 'INDIA'],
    ['"ÄB".ToLower()', 'äb'],
    ['country.ToUpperInvariant().ToLowerInvariant()', 'india'],
    ['name.Trim()', 'Ada Lovelace'],
    ['name.TrimStart()', 'Ada Lovelace '],
    ['name.TrimEnd()', '  Ada Lovelace'],
    ['country.Substring(1)', 'ndia'],
    ['country.Substring(1, 2)', 'nd'],
    ['country.IndexOf("d")', 2],
    ['country.Replace("i", "I")', 'IndIa'],
    ['country.Replace("i", null)', 'nda'],
    ['country.Equals("india")', true],
    ['country.Equals(5)', false],
    ['loyaltyFactor.Equals(2)', true],
    ['vip.ToString()', 'True'],
    ['amount.ToString()', '12.5'],
    ['country.CompareTo("a")', 1],
    ['country.CompareTo(null)', 1],
    ['nothing.GetValueOrDefault(7)', 7],
    ['amount.GetValueOrDefault()', 12.5],
    ['address.ContainsKey("zip")', true],
    ['address.ContainsKey("toString")', false],
    ['string.IsNullOrEmpty(empty)', true],
    ['string.IsNullOrEmpty(nothing)', true],
    ['string.IsNullOrEmpty(country)', false],
    ['String.IsNullOrWhiteSpace(blank)', true],
    ['string.IsNullOrWhiteSpace(name)', false],
    ['string.Equals(country, "india")', true],
    ['string.Concat(country, "-", loyaltyFactor, nothing)', 'india-2'],
    ['string.Empty == empty', true],
  ])('%s → %p', (source, expected) => expect(run(source)).toBe(expected));
  it('fails with the receiver or argument type named', () => {
    expect(failure('amount.StartsWith("1")')).toBe("'StartsWith' needs a string, got number at column 8");
    expect(failure('country.StartsWith(1)')).toBe(
      "argument of 'StartsWith' needs a string, got number at column 9",
    );
    expect(failure('country.Contains(nothing)')).toBe("argument of 'Contains' cannot be null at column 9");
    expect(failure('country.Substring(9)')).toMatch(
      /^'Substring'\(9\) is out of range of a string of length 5 at column 9$/,
    );
    expect(failure('string.IsNullOrEmpty(amount)')).toBe(
      'string.IsNullOrEmpty needs a string, got number at column 1',
    );
    expect(failure('country.Replace("", "x")')).toMatch(/string to replace cannot be empty/);
    expect(failure('tags.ContainsKey("a")')).toMatch(/'ContainsKey' needs an object, got collection/);
  });
});

describe('compileLambda: conversions and Math', () => {
  it.each([
    ['Convert.ToInt32(numText) + 1', 43],
    ['Convert.ToInt32(2.5)', 2], // banker's rounding
    ['Convert.ToInt32(3.5)', 4],
    ['Convert.ToInt32(vip)', 1],
    ['Convert.ToInt32(nothing)', 0],
    ['Convert.ToInt64("123")', 123],
    ['Convert.ToDecimal(decText)', -3.5],
    ['Convert.ToDouble("1e3")', 1000],
    ['Convert.ToDecimal(nothing)', 0],
    ['Convert.ToString(amount)', '12.5'],
    ['Convert.ToString(nothing)', ''],
    ['Convert.ToString(vip)', 'True'],
    ['Convert.ToBoolean("TRUE")', true],
    ['Convert.ToBoolean(0)', false],
    ['int.Parse("7") * 2', 14],
    ['decimal.Parse("7.25")', 7.25],
    ['double.Parse(" 1.5 ")', 1.5],
    ['Math.Abs(-3)', 3],
    ['Math.Max(2, loyaltyFactor + 1)', 3],
    ['Math.Min(2, 1)', 1],
    ['Math.Round(2.345, 2)', 2.34],
    ['Math.Round(2.355, 2)', 2.36],
    ['Math.Round(2.3451, 2)', 2.35],
    ['Math.Round(-2.5)', -2],
    ['Math.Round(-3.5)', -4],
    ['Math.Round(0.125, 2)', 0.12],
    ['Math.Round(9.995, 2)', 10],
    ['Math.Round(1.2, 3)', 1.2],
    ['Convert.ToInt32(-2.5)', -2],
    ['Math.Round(2.5)', 2],
    ['Math.Round(3.5)', 4],
    ['Math.Floor(2.7)', 2],
    ['Math.Ceiling(2.1)', 3],
    ['Math.Truncate(-2.7)', -2],
    ['Math.Pow(2, 10)', 1024],
    ['Math.Sqrt(81)', 9],
  ])('%s → %p', (source, expected) => expect(run(source)).toBe(expected));
  it('fails on bad conversions', () => {
    expect(failure('Convert.ToInt32("12a")')).toBe(
      "input string '12a' was not in a correct format at column 1",
    );
    expect(failure('Convert.ToInt32("1.5")')).toMatch(/not in a correct format/);
    expect(failure('Convert.ToInt32(3000000000)')).toMatch(/too large or too small for ToInt32/);
    expect(failure('Convert.ToBoolean("yes")')).toMatch(/not recognized as a valid Boolean/);
    expect(failure('Convert.ToInt32(tags)')).toMatch(/cannot convert collection to an integer/);
    expect(failure('int.Parse(5)')).toMatch(/int.Parse needs a string, got number/);
    expect(failure('Math.Abs(country)')).toBe('Math.Abs needs a number, got string at column 1');
    expect(failure('DateTime.Parse("nope")')).toMatch(/not recognized as a valid DateTime/);
  });
});

describe('compileLambda: dates', () => {
  it('adds time to DateTime values and ISO strings', () => {
    expect(run('DateTime.Parse(joined).AddDays(1)')).toEqual(new Date('2020-03-01T00:00:00Z'));
    expect(run('joined.AddYears(1)')).toEqual(new Date('2021-03-01T00:00:00Z'));
    expect(run('joined.AddMonths(1)')).toEqual(new Date('2020-03-29T00:00:00Z'));
    expect(run('when.AddHours(2).Hour')).toBe(12);
    expect(run('when.AddMinutes(90).Minute')).toBe(30);
    expect(run('when.AddSeconds(5).Second')).toBe(5);
    expect(run('DateTime.Parse(joined).Date == DateTime.Parse("2020-02-29")')).toBe(true);
  });
  it('compares DateTime.Now / UtcNow / Today with dates', () => {
    expect(run('DateTime.Now.AddDays(-1) < DateTime.Now')).toBe(true);
    expect(run('DateTime.Today <= DateTime.UtcNow')).toBe(true);
    expect(run('joined.AddYears(1) > DateTime.Today')).toBe(false);
  });
  it('fails on date methods of non-dates', () =>
    expect(failure('country.AddDays(1)')).toBe("'AddDays' needs a DateTime, got string at column 9"));
});

describe('compileLambda: collections and lambdas', () => {
  it.each([
    ['tags.Contains("eu")', true],
    ['tags.Contains("us")', false],
    ['nums.Contains(2)', true],
    ['tags.IndexOf("eu")', 1],
    ['tags.Any()', true],
    ['orders[1].lines.Any()', false],
    ['orders.Any(o => o.total > 200)', true],
    ['orders.All(o => o.total > 20)', true],
    ['orders.All(o => o.total > 50)', false],
    ['orders.Count()', 3],
    ['orders.Count(o => o.total >= 100)', 2],
    ['orders.Where(o => o.total >= 100).Count()', 2],
    ['orders.Where(o => o.lines.Any(l => l.qty > 1 && l.price < o.total)).Count()', 2],
    ['orders.Select(o => o.id).Contains("c")', true],
    ['orders.Sum(o => o.total)', 450],
    ['nums.Sum()', 6],
    ['mixed.Sum()', 5],
    ['nums.Max()', 3],
    ['nums.Min()', 1],
    ['mixed.Min()', 1],
    ['orders.Max(o => o.total)', 300],
    ['tags.Max()', 'gold'],
    ['nums.Average()', 2],
    ['orders.First().id', 'a'],
    ['orders.First(o => o.total < 100).id', 'b'],
    ['orders.FirstOrDefault(o => o.total > 1000)', null],
    ['orders.Last().id', 'c'],
    ['orders.LastOrDefault(o => o.total < 200).id', 'b'],
    ['orders[1].lines.FirstOrDefault()', null],
    ['nums.Distinct().Count()', 3],
    ['nums.ToList().Count', 3],
    ['orders.Any(x => x.id == "a") && orders.Any(x => x.id == "c")', true],
    ['orders.Any(country => country.id == "b")', true], // the lambda parameter shadows the fact
    ['orders.Any(o => o.total > loyaltyFactor * 100)', true], // facts inside the lambda
  ])('%s → %p', (source, expected) => expect(run(source)).toEqual(expected));
  it('reads parameters inside lambdas', () =>
    expect(run('orders.Count(o => o.total > min)', facts, { min: 100 })).toBe(2));
  it('fails on LINQ errors', () => {
    expect(failure('orders.Any(o => o.total)')).toBe(
      "lambda of 'Any' must return a bool, got number at column 12",
    );
    expect(failure('orders[1].lines.First()')).toBe('sequence contains no elements at column 17');
    expect(failure('orders.First(o => o.total > 1000)')).toBe(
      'sequence contains no matching element at column 8',
    );
    expect(failure('orders[1].lines.Max()')).toBe('sequence contains no elements at column 17');
    expect(failure('orders[1].lines.Average()')).toBe('sequence contains no elements at column 17');
    expect(failure('tags.Sum()')).toBe("'Sum' needs numbers, got string at column 6");
    expect(failure('country.Any()')).toBe("'Any' needs a collection, got string at column 9");
    expect(failure('nothing.Any()')).toBe("null reference: cannot call 'Any' on null at column 9");
    expect(failure('orders.Any(o => o.x.y)')).toBe("null reference: cannot read 'y' of null at column 21");
  });
  it('keeps nested lambda parameters apart', () => {
    const fn = compileLambda('xs.Any(x => ys.Any(y => y == x + 1))');
    expect(fn({ xs: [1, 5], ys: [3, 6] })).toBe(true);
    expect(fn({ xs: [1, 5], ys: [3, 7] })).toBe(false);
  });
});

describe('compileLambda: compile errors', () => {
  it('throws LambdaSyntaxError naming the construct', () => {
    expect(() => compileLambda('new Foo()')).toThrow(LambdaSyntaxError);
    expect(() => compileLambda('a.Foo()')).toThrow("unknown method 'Foo' at column 3");
  });
  it('returns null rather than undefined', () => expect(run('address.geo')).toBeNull());
});
