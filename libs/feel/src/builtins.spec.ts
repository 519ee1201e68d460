import { fv, warningsOf } from './test-helpers';

describe('string functions', () => {
  it.each([
    ['substring("foobar", 3)', '"obar"'],
    ['substring("foobar", -2, 1)', '"a"'],
    ['substring(string: "foobar", start position: 2, length: 3)', '"oob"'],
    ['string length("😀ab")', '3'],
    ['upper case("abc")', '"ABC"'],
    ['lower case("ABC")', '"abc"'],
    ['substring before("foobar", "bar")', '"foo"'],
    ['substring after("foobar", "ob")', '"ar"'],
    ['contains("foobar", "of")', 'false'],
    ['starts with("foobar", "fo")', 'true'],
    ['ends with("foobar", "r")', 'true'],
    ['matches("foobar", "^fo*b")', 'true'],
    ['matches("FooBar", "foobar", "i")', 'true'],
    ['matches("a\nb", "a.b", "s")', 'true'],
    ['matches("hello world", "hello world", "x")', 'false'],
    ['matches("abc", "[", "")', 'null'],
    ['matches("abc", "b", "z")', 'null'],
    ['replace("abcd", "(ab)|(a)", "[1=$1][2=$2]")', '"[1=ab][2=]cd"'],
    ['replace("banana", "a", "o")', '"bonono"'],
    ['replace("a.b.c", ".", "-", "q")', '"a-b-c"'],
    ['split("John Doe", "\\s")', '["John", "Doe"]'],
    ['split("a;b;;c", ";")', '["a", "b", "", "c"]'],
    ['string join(["a", "b", "c"], ", ")', '"a, b, c"'],
    ['string join(["a", null, "c"])', '"ac"'],
    ['string join(["a", 1])', 'null'],
    ['string(1.50)', '"1.5"'],
    ['string(date("2020-01-02"))', '"2020-01-02"'],
    ['number("1 000,5", " ", ",")', '1000.5'],
    ['number("12a")', 'null'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
  it('records a warning for invalid arguments', () => {
    expect(warningsOf('upper case(1)').join()).toMatch(/upper case/);
  });
});

describe('list functions', () => {
  it.each([
    ['list contains([1, 2, null], null)', 'true'],
    ['count([1, 2, 3])', '3'],
    ['min([3, 1, 2])', '1'],
    ['max(3, 1, 2)', '3'],
    ['min([])', 'null'],
    ['sum([1, 2.5])', '3.5'],
    ['mean([1, 2, 3, 4])', '2.5'],
    ['median([3, 1, 2, 4])', '2.5'],
    ['stddev([2, 4, 7, 5])', '2.081665999466132735282297706979931'],
    ['mode([1, 2, 2, 3, 3])', '[2, 3]'],
    ['product([2, 3, 4])', '24'],
    ['all([true, null, false])', 'false'],
    ['all([])', 'true'],
    ['any([false, null])', 'null'],
    ['sublist([1, 2, 3], -2)', '[2, 3]'],
    ['append([1], 2, 3)', '[1, 2, 3]'],
    ['concatenate([1], [], [2, 3])', '[1, 2, 3]'],
    ['insert before([1, 3], 2, 2)', '[1, 2, 3]'],
    ['remove([1, 2, 3], -1)', '[1, 2]'],
    ['reverse([1, 2, 3])', '[3, 2, 1]'],
    ['index of([1, 2, 1], 1)', '[1, 3]'],
    ['union([1, 2], [2, 3])', '[1, 2, 3]'],
    ['distinct values([1, 1, "a", "a"])', '[1, "a"]'],
    ['flatten([1, [2, [3, [4]]]])', '[1, 2, 3, 4]'],
    ['sort([3, 1, 2])', '[1, 2, 3]'],
    ['sort([3, 1, 2], function(x, y) x > y)', '[3, 2, 1]'],
    ['sort(list: ["b", "a"], precedes: function(x, y) x < y)', '["a", "b"]'],
    ['list replace([1, 2, 3], 2, 9)', '[1, 9, 3]'],
    ['list replace([1, 2, 3], function(item, newItem) item > 1, 0)', '[1, 0, 0]'],
    ['[1, 2, 3][0]', 'null'],
    ['[1, 2, 3][4]', 'null'],
    ['[1, 2, 3][-3]', '1'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
});

describe('numeric functions', () => {
  it.each([
    ['decimal(1/3, 2)', '0.33'],
    ['decimal(2.5, 0)', '2'],
    ['decimal(3.5, 0)', '4'],
    ['floor(-1.5)', '-2'],
    ['ceiling(1.2)', '2'],
    ['floor(1.567, 2)', '1.56'],
    ['round up(5.5, 0)', '6'],
    ['round up(-5.5, 0)', '-6'],
    ['round down(5.5, 0)', '5'],
    ['round half up(2.5, 0)', '3'],
    ['round half down(2.5, 0)', '2'],
    ['round half up(1234.5, -2)', '1200'],
    ['abs(-10)', '10'],
    ['abs(@"-P1D")', 'P1D'],
    ['modulo(12, 5)', '2'],
    ['modulo(-12, 5)', '3'],
    ['modulo(12, -5)', '-3'],
    ['modulo(1, 0)', 'null'],
    ['sqrt(16)', '4'],
    ['sqrt(-1)', 'null'],
    ['log(1)', '0'],
    ['exp(0)', '1'],
    ['odd(5)', 'true'],
    ['even(5)', 'false'],
    ['even(1.5)', 'null'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
});

describe('context functions', () => {
  it.each([
    ['get value({a: 1}, "a")', '1'],
    ['get value({a: 1}, "b")', 'null'],
    ['get entries({a: 1, b: 2})', '[{key: "a", value: 1}, {key: "b", value: 2}]'],
    ['context([{key: "a", value: 1}, {key: "b", value: 2}])', '{a: 1, b: 2}'],
    ['context([{key: "a", value: 1}, {key: "a", value: 2}])', 'null'],
    ['context put({a: 1}, "b", 2)', '{a: 1, b: 2}'],
    ['context put({a: {b: 1}}, ["a", "b"], 2)', '{a: {b: 2}}'],
    ['context merge([{a: 1}, {a: 2, b: 3}])', '{a: 2, b: 3}'],
    ['{a: 1, b: 2}.b', '2'],
    ['[{a: 1}, {a: 2}].a', '[1, 2]'],
    ['[{a: 1, b: 1}, {a: 2, b: 2}][a > 1].b', '[2]'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
});

describe('range functions', () => {
  it.each([
    ['before(1, 10)', 'true'],
    ['before(1, [2..5])', 'true'],
    ['before([1..5], 10)', 'true'],
    ['before([1..5], [5..10])', 'false'],
    ['before([1..5), [5..10])', 'true'],
    ['after(10, 1)', 'true'],
    ['after([6..10], [1..5])', 'true'],
    ['meets([1..5], [5..10])', 'true'],
    ['met by([5..10], [1..5])', 'true'],
    ['overlaps([1..5], [3..8])', 'true'],
    ['overlaps([1..5], [6..8])', 'false'],
    ['overlaps before([1..5], [3..8])', 'true'],
    ['overlaps after([3..8], [1..5])', 'true'],
    ['finishes(5, [1..5])', 'true'],
    ['finished by([1..5], [3..5])', 'true'],
    ['includes([1..10], 5)', 'true'],
    ['includes([1..10], [3..4])', 'true'],
    ['during(5, [1..10])', 'true'],
    ['starts(1, [1..5])', 'true'],
    ['started by([1..5], [1..3])', 'true'],
    ['coincides([1..5], [1..5])', 'true'],
    ['coincides(1, 2)', 'false'],
    ['before(point: 1, range: [2..3])', 'true'],
    ['before(range: [1..2], point: 3)', 'true'],
    ['includes(< 10, 5)', 'true'],
    ['range("[1..10)")', '[1..10)'],
    ['range("[3..1]")', 'null'],
    ['[1..10].start + [1..10].end', '11'],
    ['[1..10).end included', 'false'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
});

describe('membership and equality', () => {
  it.each([
    ['5 in [1..10]', 'true'],
    ['5 in (1, 2, 5)', 'true'],
    ['5 in (< 3, > 4)', 'true'],
    ['5 in [1, 2, 3]', 'false'],
    ['"b" in ["a", "b"]', 'true'],
    ['[1, 2] = [1, 2]', 'true'],
    ['{a: 1, b: 2} = {b: 2, a: 1}', 'true'],
    ['[1..2] = [1..2]', 'true'],
    ['is(date("2020-01-01"), date("2020-01-01"))', 'true'],
    ['is(time("10:00:00@Europe/Paris"), time("10:00:00+01:00"))', 'false'],
  ])('%s = %s', (src, expected) => {
    expect(fv(src)).toBe(expected);
  });
});
