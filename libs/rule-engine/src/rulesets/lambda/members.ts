/**
 * The methods and static members the lambda language supports, with their arities. The parser refuses
 * anything else by name (`unknown method 'Foo'`), so a stored rule can never fail later for that.
 */

export interface MethodSignature {
  min: number;
  max: number;
  /** the (single, optional unless min is 1) argument must be a lambda `x => …` */
  lambda?: boolean;
}

const sig = (min: number, max = min, lambda = false): MethodSignature => ({ min, max, lambda });

/** Instance methods: `receiver.Name(args)`. */
export const INSTANCE_METHODS: ReadonlyMap<string, MethodSignature> = new Map([
  // strings (Contains also on collections)
  ['Contains', sig(1)],
  ['StartsWith', sig(1)],
  ['EndsWith', sig(1)],
  ['ToLower', sig(0)],
  ['ToUpper', sig(0)],
  ['ToLowerInvariant', sig(0)],
  ['ToUpperInvariant', sig(0)],
  ['Trim', sig(0)],
  ['TrimStart', sig(0)],
  ['TrimEnd', sig(0)],
  ['Substring', sig(1, 2)],
  ['IndexOf', sig(1)],
  ['Replace', sig(2)],
  // any value
  ['Equals', sig(1)],
  ['ToString', sig(0)],
  ['CompareTo', sig(1)],
  ['GetValueOrDefault', sig(0, 1)],
  // dictionaries (JSON objects)
  ['ContainsKey', sig(1)],
  // collections (JSON arrays), LINQ
  ['Count', sig(0, 1, true)],
  ['Any', sig(0, 1, true)],
  ['All', sig(1, 1, true)],
  ['Where', sig(1, 1, true)],
  ['Select', sig(1, 1, true)],
  ['First', sig(0, 1, true)],
  ['FirstOrDefault', sig(0, 1, true)],
  ['Last', sig(0, 1, true)],
  ['LastOrDefault', sig(0, 1, true)],
  ['Sum', sig(0, 1, true)],
  ['Min', sig(0, 1, true)],
  ['Max', sig(0, 1, true)],
  ['Average', sig(0, 1, true)],
  ['Distinct', sig(0)],
  ['ToList', sig(0)],
  ['ToArray', sig(0)],
  // dates
  ['AddDays', sig(1)],
  ['AddHours', sig(1)],
  ['AddMinutes', sig(1)],
  ['AddSeconds', sig(1)],
  ['AddMonths', sig(1)],
  ['AddYears', sig(1)],
]);

/** Static types by the names a rule may use for them. */
export const STATIC_TYPES: ReadonlyMap<string, string> = new Map([
  ['string', 'string'],
  ['String', 'string'],
  ['Convert', 'Convert'],
  ['Math', 'Math'],
  ['DateTime', 'DateTime'],
  ['int', 'int'],
  ['Int32', 'int'],
  ['long', 'long'],
  ['Int64', 'long'],
  ['decimal', 'decimal'],
  ['Decimal', 'decimal'],
  ['double', 'double'],
  ['Double', 'double'],
]);

/** Static members per type: a signature for methods, null for properties (`DateTime.Now`). */
export const STATIC_MEMBERS: Readonly<Record<string, ReadonlyMap<string, MethodSignature | null>>> = {
  string: new Map([
    ['IsNullOrEmpty', sig(1)],
    ['IsNullOrWhiteSpace', sig(1)],
    ['Equals', sig(2)],
    ['Concat', sig(1, 16)],
    ['Empty', null],
  ]),
  Convert: new Map([
    ['ToInt32', sig(1)],
    ['ToInt64', sig(1)],
    ['ToInt16', sig(1)],
    ['ToDecimal', sig(1)],
    ['ToDouble', sig(1)],
    ['ToSingle', sig(1)],
    ['ToString', sig(1)],
    ['ToBoolean', sig(1)],
  ]),
  Math: new Map([
    ['Abs', sig(1)],
    ['Min', sig(2)],
    ['Max', sig(2)],
    ['Round', sig(1, 2)],
    ['Floor', sig(1)],
    ['Ceiling', sig(1)],
    ['Truncate', sig(1)],
    ['Pow', sig(2)],
    ['Sqrt', sig(1)],
  ]),
  DateTime: new Map([
    ['Now', null],
    ['UtcNow', null],
    ['Today', null],
    ['Parse', sig(1)],
  ]),
  int: new Map([['Parse', sig(1)]]),
  long: new Map([['Parse', sig(1)]]),
  decimal: new Map([['Parse', sig(1)]]),
  double: new Map([['Parse', sig(1)]]),
};

/** Type names that, in `(T)x`, make a cast. */
export const CAST_TYPES = new Set([
  'int',
  'long',
  'short',
  'byte',
  'decimal',
  'double',
  'float',
  'string',
  'bool',
  'object',
  'char',
  'DateTime',
  'Int32',
  'Int64',
  'Decimal',
  'Double',
  'String',
  'Boolean',
]);
