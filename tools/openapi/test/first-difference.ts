/** The JSON pointer of the first place two JSON values differ (keys in either order), or undefined. */
export function firstDifference(a: unknown, b: unknown, pointer = ''): string | undefined {
  if (a === b) return undefined;
  const here = pointer || '/';
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return here;
  if (Array.isArray(a) !== Array.isArray(b)) return here;
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(left), ...Object.keys(right)])];
  for (const key of keys) {
    if (!(key in left) || !(key in right)) return `${pointer}/${escape(key)}`;
    const found = firstDifference(left[key], right[key], `${pointer}/${escape(key)}`);
    if (found) return found;
  }
  return undefined;
}

function escape(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
