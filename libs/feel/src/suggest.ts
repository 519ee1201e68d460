/** Editor autocomplete: names in scope, built-ins with their signatures, keywords. */
import { builtinSignatures } from './builtins';
import { scopeNames } from './parse';

export interface Suggestion {
  label: string;
  kind: 'variable' | 'function' | 'keyword';
  detail?: string;
  /** text to replace the typed prefix with */
  insertText: string;
  /** start offset of the replaced prefix */
  from: number;
}

const KEYWORDS = [
  'if',
  'then',
  'else',
  'for',
  'in',
  'return',
  'some',
  'every',
  'satisfies',
  'and',
  'or',
  'not',
  'between',
  'instance of',
  'function',
  'true',
  'false',
  'null',
];

/** Autocomplete: names in scope, built-ins (with signatures) and keywords matching the word before the cursor. */
export function suggest(
  src: string,
  cursor: number = src.length,
  scope: Iterable<string> | Record<string, unknown> = [],
): Suggestion[] {
  const names = scopeNames(scope);
  const before = src.slice(0, Math.max(0, Math.min(cursor, src.length)));
  // the prefix may contain spaces (multi-word names): take the longest suffix that prefixes a candidate
  const m = /[\p{L}\p{N}_? ]*$/u.exec(before);
  const tail = (m ? m[0] : '').replace(/^\s+/, '');
  const words = tail.split(' ');
  const candidates: Omit<Suggestion, 'from' | 'insertText'>[] = [
    ...names.map((n) => ({ label: n, kind: 'variable' as const })),
    ...builtinSignatures().map((b) => ({ label: b.name, kind: 'function' as const, detail: b.signature })),
    ...KEYWORDS.map((k) => ({ label: k, kind: 'keyword' as const })),
  ];
  for (let k = 0; k < words.length; k++) {
    const prefix = words.slice(k).join(' ');
    const lower = prefix.toLowerCase();
    const hits = candidates.filter((c) => c.label.toLowerCase().startsWith(lower));
    if (hits.length || k === words.length - 1) {
      const from = before.length - prefix.length;
      const seen = new Set<string>();
      return hits
        .filter((h) => {
          const key = h.label + '|' + (h.detail ?? '');
          if (seen.has(key)) return false;
          seen.add(key);
          return true;
        })
        .sort((a, b) =>
          a.kind === b.kind
            ? a.label.localeCompare(b.label)
            : a.kind === 'variable'
              ? -1
              : b.kind === 'variable'
                ? 1
                : a.kind === 'function'
                  ? -1
                  : 1,
        )
        .map((h) => ({ ...h, insertText: h.kind === 'function' ? h.label + '(' : h.label, from }));
    }
  }
  return [];
}
