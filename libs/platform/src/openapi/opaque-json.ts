/**
 * Body properties that hold open JSON handed to the service as sent (a rule set document, a table's rows):
 * declared by `ObjectField` and by `ArrayField` of open objects. The validation pipe checks their shape
 * (an object; an array of objects) without having class-transformer copy every nested value, which for a
 * 10,000-row table or rule set held the event loop for 0.1–0.2 s.
 */
export type OpaqueJsonKind = 'object' | 'objects' | 'array';

/** An open-JSON property: its kind, and for `objects` the array's size bounds (ArrayMinSize / ArrayMaxSize). */
export interface OpaqueJsonSpec {
  kind: OpaqueJsonKind;
  minItems?: number;
  maxItems?: number;
}

const declared = new WeakMap<object, Map<string, OpaqueJsonSpec>>();

/**
 * Marks a property as open JSON (`object`: one object; `objects`: an array of objects, within `bounds`
 * when given: the same bounds as the property's ArrayMinSize / ArrayMaxSize rules; `array`: an array whose
 * items the service checks itself — validated as an empty array, so only array-level rules such as
 * `IsArray` apply, not `ArrayMaxSize` or per-item rules).
 */
export function OpaqueJson(
  kind: OpaqueJsonKind,
  bounds: { minItems?: number; maxItems?: number } = {},
): PropertyDecorator {
  return (target, key) => {
    if (typeof key !== 'string') return;
    let own = declared.get(target);
    if (!own) declared.set(target, (own = new Map()));
    own.set(key, { kind, ...bounds });
  };
}

/** The open-JSON properties of a DTO class, its base classes' included. */
export function opaqueJsonProperties(type: unknown): ReadonlyMap<string, OpaqueJsonSpec> | null {
  if (typeof type !== 'function') return null;
  let found: Map<string, OpaqueJsonSpec> | null = null;
  for (
    let proto = type.prototype;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    const own = declared.get(proto);
    if (!own) continue;
    found ??= new Map();
    for (const [key, spec] of own) if (!found.has(key)) found.set(key, spec);
  }
  return found;
}
