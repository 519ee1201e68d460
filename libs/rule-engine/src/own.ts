/**
 * Reading and writing user-named keys (column names are user text) on plain objects: `constructor`,
 * `toString` or `hasOwnProperty` must not find Object.prototype's members, and `__proto__` must be a key
 * like any other, not the prototype.
 */

/** The own property `key` of `object`, or undefined. */
export function own(object: object, key: string): unknown {
  return Object.hasOwn(object, key) ? (object as Record<string, unknown>)[key] : undefined;
}

/** Sets `key` as an own enumerable property, `__proto__` included. */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
  else object[key] = value;
}

/** Whether a plain object has a member of this name without owning it (`constructor`, `__proto__`, …). */
export function isInheritedName(key: string): boolean {
  return key in Object.prototype;
}
