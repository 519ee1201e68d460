import { Box, Group, Paper, Text } from '@mantine/core';
import { diffLines, pairRows } from '../diff-lines';

export function SideBySideDiff(props: {
  leftTitle: string;
  rightTitle: string;
  left: unknown;
  right: unknown;
}) {
  const rows = pairRows(
    diffLines(
      JSON.stringify(props.left, null, 2).split('\n'),
      JSON.stringify(props.right, null, 2).split('\n'),
    ),
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
            {cell(
              row.left,
              row.kind === 'del' || row.kind === 'change'
                ? '#ffe3e3'
                : row.kind === 'add'
                  ? '#f1f3f5'
                  : undefined,
            )}
            {cell(
              row.right,
              row.kind === 'add' || row.kind === 'change'
                ? '#d3f9d8'
                : row.kind === 'del'
                  ? '#f1f3f5'
                  : undefined,
            )}
          </Group>
        ))}
      </Box>
    </Paper>
  );
}
