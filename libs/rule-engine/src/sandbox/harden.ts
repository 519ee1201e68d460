/**
 * Runs once in every fresh sandbox context, before any user code: freezes every object reachable from
 * `globalThis` (constructors, their prototypes, their methods, accessors) and the intrinsics that are
 * only reachable through syntax (iterator, generator and async function prototypes), then
 * `globalThis` itself. A script can then neither add globals nor change a built-in for a later run
 * (`Object.prototype.x = 1` throws in the strict-mode condition body).
 */
export const HARDEN_INTRINSICS = `(function () {
  'use strict';
  // Native loops QuickJS does not interrupt (its interrupt handler runs between bytecodes, not inside a
  // built-in): Array.prototype.includes / indexOf / lastIndexOf over {length: 1e15}, fill over a huge
  // sparse array. Replaced by loops in JavaScript, which the time limit stops like any other loop.
  var toLength = function (o) {
    var n = Math.trunc(Number(o.length));
    return n > 0 ? Math.min(n, Number.MAX_SAFE_INTEGER) : 0;
  };
  var relative = function (value, length, fallback) {
    if (value === undefined) return fallback;
    var n = Math.trunc(Number(value)) || 0;
    return n < 0 ? Math.max(length + n, 0) : Math.min(n, length);
  };
  var same = function (a, b) { return a === b || (a !== a && b !== b); };
  var define = function (name, fn) {
    Object.defineProperty(Array.prototype, name, { value: fn, writable: true, enumerable: false, configurable: true });
  };
  define('includes', { includes: function (search, from) {
    var o = Object(this), n = toLength(o);
    for (var i = relative(from, n, 0); i < n; i++) if (same(o[i], search)) return true;
    return false;
  } }.includes);
  define('indexOf', { indexOf: function (search, from) {
    var o = Object(this), n = toLength(o);
    for (var i = relative(from, n, 0); i < n; i++) if (i in o && o[i] === search) return i;
    return -1;
  } }.indexOf);
  define('lastIndexOf', { lastIndexOf: function (search, from) {
    var o = Object(this), n = toLength(o);
    var i = from === undefined ? n - 1 : Math.min(relative(from, n, n - 1), n - 1);
    if (from !== undefined && Math.trunc(Number(from)) < 0) i = n + Math.trunc(Number(from));
    for (; i >= 0; i--) if (i in o && o[i] === search) return i;
    return -1;
  } }.lastIndexOf);
  define('fill', { fill: function (value, start, end) {
    var o = Object(this), n = toLength(o);
    for (var i = relative(start, n, 0), e = relative(end, n, n); i < e; i++) o[i] = value;
    return o;
  } }.fill);
  var seen = new Set();
  var queue = [
    globalThis,
    Object.getPrototypeOf(function* () {}),
    Object.getPrototypeOf((function* () {})()),
    Object.getPrototypeOf(async function () {}),
    Object.getPrototypeOf(async function* () {}),
    Object.getPrototypeOf((async function* () {})()),
    Object.getPrototypeOf([][Symbol.iterator]()),
    Object.getPrototypeOf(''[Symbol.iterator]()),
    Object.getPrototypeOf(new Map()[Symbol.iterator]()),
    Object.getPrototypeOf(new Set()[Symbol.iterator]()),
    Object.getPrototypeOf(/x/[Symbol.matchAll]('')),
    Object.getOwnPropertyDescriptor(Function.prototype, 'caller'),
  ];
  while (queue.length > 0) {
    var o = queue.pop();
    if (o === null || (typeof o !== 'object' && typeof o !== 'function') || seen.has(o)) continue;
    seen.add(o);
    var keys = Reflect.ownKeys(o);
    for (var i = 0; i < keys.length; i++) {
      var d = Reflect.getOwnPropertyDescriptor(o, keys[i]);
      if (!d) continue;
      if ('value' in d) queue.push(d.value);
      else queue.push(d.get, d.set);
    }
    queue.push(Object.getPrototypeOf(o));
    Object.freeze(o);
  }
})()`;

/** The condition's source text as the VM must see it: a strict function of `input` and `facts`. */
export function conditionFunctionSource(body: string): string {
  return `function (input, facts) {"use strict";\n${body}\n}`;
}

/**
 * Builds the runner of one condition from the function the host compiled out of
 * `(${conditionFunctionSource(body)})`. The function's own source text must be exactly that text:
 * a body that closes the function early (`return true }, other(), function () {`) yields another
 * function or value and is refused. The function is frozen, and the runner parses the JSON arguments
 * with the `JSON.parse` captured before any user code ran.
 */
export const CONDITION_FACTORY = `(function (condition, expected) {
  'use strict';
  var parse = JSON.parse;
  var toSource = Function.prototype.toString;
  if (typeof condition !== 'function' || toSource.call(condition) !== expected)
    throw new SyntaxError('the script closes its function body early (unbalanced braces)');
  Object.freeze(condition.prototype);
  Object.freeze(condition);
  return Object.freeze(function (json) {
    var args = parse(json);
    return condition(args[0], args[1]);
  });
})`;
