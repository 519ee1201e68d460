/** One suggestion of the decisions service's `POST /api/v1/decision-tables/feel-autocomplete`. */
export interface Suggestion {
  label: string;
  kind: string;
  detail?: string;
  insertText: string;
  /** offset in the expression where the replaced word starts */
  from: number;
}

/**
 * The options of a FEEL cell's autocomplete: each is the whole cell text after picking the suggestion
 * (the word from `from` to the cursor at the end replaced by `insertText`), labelled with its signature.
 * Overloads that insert the same text are one option; the order of the service is kept.
 */
export function completionOptions(
  text: string,
  suggestions: Suggestion[],
): { value: string; label: string }[] {
  const seen = new Set<string>();
  const options: { value: string; label: string }[] = [];
  for (const s of suggestions) {
    const from = Math.max(0, Math.min(text.length, s.from));
    const value = text.slice(0, from) + s.insertText;
    if (value === text || seen.has(value)) continue;
    seen.add(value);
    options.push({ value, label: `${s.detail ?? s.label} · ${s.kind}` });
  }
  return options;
}

/** Per-row marks of a table analysis (`POST /api/v1/decision-tables/analyze`). */
export interface Analysis {
  overlaps: { rowIds: string[]; columns: string[] }[];
  overlapCount: number;
  overlapsTruncated: boolean;
  gaps: { example: Record<string, unknown>; description: string }[];
  gapsTruncated: boolean;
  redundantRows: { rowId: string; subsumedBy: string }[];
  complete: boolean;
}
export interface RowMarks {
  overlapsWith: string[];
  subsumedBy?: string;
}

export function rowMarks(analysis: Analysis | null): Record<string, RowMarks> {
  const marks: Record<string, RowMarks> = {};
  if (!analysis) return marks;
  const mark = (id: string) => (marks[id] ??= { overlapsWith: [] });
  for (const o of analysis.overlaps)
    for (const id of o.rowIds) mark(id).overlapsWith.push(...o.rowIds.filter((other) => other !== id));
  for (const r of analysis.redundantRows) mark(r.rowId).subsumedBy = r.subsumedBy;
  return marks;
}
