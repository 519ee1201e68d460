import { ActionIcon, Badge, Group, Paper, Stack, Table, Text, TextInput } from '@mantine/core';
import { useVirtualizer } from '@tanstack/react-virtual';
import { Dispatch, memo, SetStateAction, useCallback, useMemo, useRef } from 'react';
import { RowMarks } from '../feel-completion';
import { validationScope } from '../feel-validation';
import {
  Column,
  deleteColumn,
  deleteRow,
  display,
  moveRow,
  Row,
  setCell,
  TableDefinition,
} from '../table-model';
import { FeelCell } from './FeelCell';

interface Props {
  table: TableDefinition;
  setTable: Dispatch<SetStateAction<TableDefinition | null>>;
  tableId: string;
  cellErrors: Record<string, string>;
  marks: Record<string, RowMarks>;
}

/** estimated height of one row (px); measured rows correct it */
const ROW_HEIGHT = 46;
/** the grid's scrolling height: only the rows in (and near) this window are in the DOM */
const VIEWPORT = 520;

/**
 * The decision-table grid. Rows are virtualised (`@tanstack/react-virtual`): a 1,000-row table keeps
 * a few dozen rows in the DOM, and each row is memoised, so typing in a cell renders that row only.
 */
export function TableGrid({ table, setTable, tableId, cellErrors, marks }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: table.rows.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 6,
  });
  const items = virtualizer.getVirtualItems();
  const top = items.length ? items[0].start : 0;
  const bottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;
  const columns = table.inputColumns.length + table.outputColumns.length + 2;
  const scope = useMemo(() => validationScope(table.inputColumns), [table.inputColumns]);

  const onCell = useCallback(
    (index: number, side: 'input' | 'output', column: string, value: string) =>
      setTable((t) => t && setCell(t, index, side, column, value)),
    [setTable],
  );
  const onRow = useCallback(
    (index: number, action: 'up' | 'down' | 'delete') =>
      setTable(
        (t) => t && (action === 'delete' ? deleteRow(t, index) : moveRow(t, index, action === 'up' ? -1 : 1)),
      ),
    [setTable],
  );

  const header = (c: Column, side: 'input' | 'output') => (
    <Table.Th
      key={`${side}-${c.name}`}
      bg={`var(--mantine-color-${side === 'input' ? 'blue' : 'green'}-light)`}
    >
      <Group gap={4} wrap="nowrap">
        <span>{c.name}</span>
        <Text size="xs" c="gray.8">
          {side === 'input' ? 'in' : 'out'}
          {c.type ? `: ${c.type}` : ''}
        </Text>
        <ActionIcon
          size="xs"
          variant="subtle"
          color="red.9"
          aria-label={`Delete ${side} column ${c.name}`}
          onClick={() => setTable((t) => t && deleteColumn(t, side, c.name))}
        >
          ×
        </ActionIcon>
      </Group>
    </Table.Th>
  );

  return (
    <Paper withBorder>
      <div
        ref={scroller}
        style={{ maxHeight: VIEWPORT, overflow: 'auto' }}
        data-testid="table-grid-scroller"
        tabIndex={0}
        aria-label={`Rows of ${table.name} (${table.rows.length})`}
        role="region"
      >
        <Table data-testid="table-grid" withColumnBorders stickyHeader>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              {table.inputColumns.map((c) => header(c, 'input'))}
              {table.outputColumns.map((c) => header(c, 'output'))}
              <Table.Th>Row</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {top > 0 && (
              <tr aria-hidden="true">
                <td colSpan={columns} style={{ height: top, padding: 0, border: 0 }} />
              </tr>
            )}
            {items.map((item) => {
              const row = table.rows[item.index];
              return (
                <GridRow
                  key={row.id}
                  measure={virtualizer.measureElement}
                  index={item.index}
                  row={row}
                  inputs={table.inputColumns}
                  outputs={table.outputColumns}
                  tableId={tableId}
                  scope={scope}
                  errors={cellErrors}
                  marks={marks[row.id]}
                  onCell={onCell}
                  onRow={onRow}
                />
              );
            })}
            {bottom > 0 && (
              <tr aria-hidden="true">
                <td colSpan={columns} style={{ height: bottom, padding: 0, border: 0 }} />
              </tr>
            )}
          </Table.Tbody>
        </Table>
      </div>
    </Paper>
  );
}

interface RowProps {
  measure: (element: Element | null) => void;
  index: number;
  row: Row;
  inputs: Column[];
  outputs: Column[];
  tableId: string;
  scope: Record<string, string>;
  errors: Record<string, string>;
  marks: RowMarks | undefined;
  onCell: (index: number, side: 'input' | 'output', column: string, value: string) => void;
  onRow: (index: number, action: 'up' | 'down' | 'delete') => void;
}

const GridRow = memo(function GridRow({
  measure,
  index,
  row,
  inputs,
  outputs,
  tableId,
  scope,
  errors,
  marks,
  onCell,
  onRow,
}: RowProps) {
  const tint = marks?.subsumedBy
    ? 'var(--mantine-color-orange-light)'
    : marks?.overlapsWith.length
      ? 'var(--mantine-color-yellow-light)'
      : undefined;
  return (
    <Table.Tr ref={measure} data-index={index} bg={tint} data-testid={`row-${row.id}`}>
      <Table.Td>
        <Stack gap={2}>
          <Text size="sm">{index + 1}</Text>
          {marks?.overlapsWith.length ? (
            <Badge size="xs" color="yellow" data-testid={`overlap-${row.id}`}>
              overlaps {[...new Set(marks.overlapsWith)].join(', ')}
            </Badge>
          ) : null}
          {marks?.subsumedBy && (
            <Badge size="xs" color="orange" data-testid={`redundant-${row.id}`}>
              redundant: {marks.subsumedBy} covers it
            </Badge>
          )}
        </Stack>
      </Table.Td>
      {inputs.map((c) => (
        <Table.Td key={c.name}>
          <FeelCell
            label={`${c.name} of row ${row.id}`}
            value={row.inputConditions?.[c.name] ?? ''}
            error={errors[`${row.id}:${c.name}`]}
            tableId={tableId}
            scope={scope}
            onChange={(v) => onCell(index, 'input', c.name, v)}
          />
        </Table.Td>
      ))}
      {outputs.map((c) => (
        <Table.Td key={c.name}>
          <TextInput
            size="xs"
            aria-label={`${c.name} of row ${row.id}`}
            value={display(row.outputs?.[c.name])}
            error={errors[`${row.id}:${c.name}`]}
            onChange={(e) => onCell(index, 'output', c.name, e.currentTarget.value)}
            styles={{ input: { fontFamily: 'monospace' } }}
          />
        </Table.Td>
      ))}
      <Table.Td>
        <Group gap={2} wrap="nowrap">
          <ActionIcon
            size="sm"
            variant="subtle"
            aria-label={`Move row ${index + 1} up`}
            onClick={() => onRow(index, 'up')}
          >
            ↑
          </ActionIcon>
          <ActionIcon
            size="sm"
            variant="subtle"
            aria-label={`Move row ${index + 1} down`}
            onClick={() => onRow(index, 'down')}
          >
            ↓
          </ActionIcon>
          <ActionIcon
            size="sm"
            variant="subtle"
            color="red.9"
            aria-label={`Delete row ${index + 1}`}
            onClick={() => onRow(index, 'delete')}
          >
            ×
          </ActionIcon>
        </Group>
      </Table.Td>
    </Table.Tr>
  );
});
