export type DiffRow = { left?: string; right?: string; kind: 'same' | 'del' | 'add' };

/** Longest-common-subsequence line diff of two texts, aligned row by row. */
export function diffLines(a: string[], b: string[]): DiffRow[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const rows: DiffRow[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      rows.push({ left: a[i++], right: b[j++], kind: 'same' });
    } else if (i < n && (j >= m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      rows.push({ left: a[i++], kind: 'del' });
    } else {
      rows.push({ right: b[j++], kind: 'add' });
    }
  }
  return rows;
}

/**
 * Side-by-side rows: a run of removed lines followed by a run of added lines is shown as changed lines
 * facing each other (what was there on the left, what replaced it on the right).
 */
export function pairRows(
  rows: DiffRow[],
): { left?: string; right?: string; kind: 'same' | 'del' | 'add' | 'change' }[] {
  const out: { left?: string; right?: string; kind: 'same' | 'del' | 'add' | 'change' }[] = [];
  let k = 0;
  while (k < rows.length) {
    if (rows[k].kind !== 'del') {
      out.push(rows[k++]);
      continue;
    }
    const dels: string[] = [];
    while (k < rows.length && rows[k].kind === 'del') dels.push(rows[k++].left!);
    const adds: string[] = [];
    while (k < rows.length && rows[k].kind === 'add') adds.push(rows[k++].right!);
    for (let x = 0; x < Math.max(dels.length, adds.length); x++) {
      const left = dels[x];
      const right = adds[x];
      out.push({
        left,
        right,
        kind: left !== undefined && right !== undefined ? 'change' : left !== undefined ? 'del' : 'add',
      });
    }
  }
  return out;
}
