import { Table, type TableProps } from '@mantine/core';
import type { ReactNode } from 'react';

interface ListTableProps extends TableProps {
  /** The `data-testid` of the table (what the console's tests find it by). */
  testId: string;
  /** The column titles, in order. */
  columns: readonly ReactNode[];
  /** The body's rows (`Table.Tr`). */
  children: ReactNode;
}

/** A list as a table: one header row of column titles, then the rows given. */
export function ListTable({ testId, columns, children, ...table }: ListTableProps) {
  return (
    <Table data-testid={testId} {...table}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((column, i) => (
            <Table.Th key={i}>{column}</Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>{children}</Table.Tbody>
    </Table>
  );
}
