import { Box, Group, Paper, Text } from '@mantine/core';

/** Longest-common-subsequence line diff of two texts, aligned row by row. */
export function diffLines(a: string[], b: string[]): { left?: string; right?: string; kind: 'same' | 'del' | 'add' }[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const rows: { left?: string; right?: string; kind: 'same' | 'del' | 'add' }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      rows.push({ left: a[i++], right: b[j++], kind: 'same' });
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      rows.push({ right: b[j++], kind: 'add' });
    } else {
      rows.push({ left: a[i++], kind: 'del' });
    }
  }
  return rows;
}

export function SideBySideDiff(props: { leftTitle: string; rightTitle: string; left: unknown; right: unknown }) {
  const rows = diffLines(
    JSON.stringify(props.left, null, 2).split('\n'),
    JSON.stringify(props.right, null, 2).split('\n'),
  );
  const cell = (text: string | undefined, colour: string | undefined) => (
    <Box
      component="pre"
      m={0}
      px="xs"
      style={{ background: colour, fontSize: 12, minHeight: 18, whiteSpace: 'pre-wrap', color: '#212529' }}
    >
      {text ?? ''}
    </Box>
  );
  return (
    <Paper withBorder data-testid="side-by-side-diff">
      <Group grow gap={0} align="flex-start">
        <Text fw={600} px="xs">
          {props.leftTitle}
        </Text>
        <Text fw={600} px="xs">
          {props.rightTitle}
        </Text>
      </Group>
      <Box style={{ maxHeight: 480, overflow: 'auto' }}>
        {rows.map((row, k) => (
          <Group key={k} grow gap={0} align="stretch" wrap="nowrap">
            {cell(row.left, row.kind === 'del' ? '#ffe3e3' : row.kind === 'add' ? '#f1f3f5' : undefined)}
            {cell(row.right, row.kind === 'add' ? '#d3f9d8' : row.kind === 'del' ? '#f1f3f5' : undefined)}
          </Group>
        ))}
      </Box>
    </Paper>
  );
}
