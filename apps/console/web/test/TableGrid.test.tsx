import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TableGrid } from '../src/components/TableGrid';
import { TableDefinition } from '../src/table-model';

/**
 * The grid's browser logic: a 1,000-row table keeps only a window of rows in the DOM (virtualised), an
 * edit changes that one cell in the table state, and row buttons move and delete. happy-dom does no
 * layout, so the scroller is given the height the page gives it (520 px) and rows their estimated one.
 */
const bands = (n: number): TableDefinition => ({
  name: 'Bands',
  hitPolicy: 'First',
  inputColumns: [{ name: 'age', type: 'number' }],
  outputColumns: [{ name: 'risk', type: 'string' }],
  rows: Array.from({ length: n }, (_, i) => ({
    id: `r${i + 1}`,
    inputConditions: { age: `[${i}..${i + 1})` },
    outputs: { risk: `band ${i + 1}` },
  })),
});

let latest: TableDefinition | null = null;
function Harness({ initial }: { initial: TableDefinition }) {
  const [table, setTable] = useState<TableDefinition | null>(initial);
  latest = table;
  return (
    <MantineProvider>
      <TableGrid table={table!} setTable={setTable} tableId="" cellErrors={{}} marks={{}} />
    </MantineProvider>
  );
}

beforeEach(() => {
  vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return this.dataset.testid === 'table-grid-scroller' ? 520 : 46;
  });
  vi.spyOn(HTMLElement.prototype, 'offsetWidth', 'get').mockReturnValue(1200);
  vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (this: HTMLElement) {
    return this.dataset.testid === 'table-grid-scroller' ? 520 : 46;
  });
  vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(1200);
  // happy-dom's observer reports zero-sized boxes; the sizes above are the layout
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      unobserve() {}
      disconnect() {}
    },
  );
  // nothing to answer: the cells have no table id, so no completion or validation goes out
  vi.stubGlobal('fetch', async () => new Response('{}'));
});
afterEach(() => {
  latest = null;
});

const rowsInDom = () => document.querySelectorAll('tbody tr[data-index]').length;

describe('decision-table grid', () => {
  it('renders only a window of a 1,000-row table', () => {
    render(<Harness initial={bands(1000)} />);
    expect(screen.getByLabelText('risk of row r1')).toBeTruthy();
    expect(rowsInDom()).toBeGreaterThan(0);
    expect(rowsInDom()).toBeLessThan(60);
    expect(screen.queryByLabelText('risk of row r500')).toBeNull();
    expect(screen.getByRole('region', { name: 'Rows of Bands (1000)' })).toBeTruthy();
  });

  it('writes an edit into that one cell of the table state', () => {
    render(<Harness initial={bands(1000)} />);
    fireEvent.change(screen.getByLabelText('risk of row r2'), { target: { value: 'edited' } });
    expect(latest!.rows[1].outputs).toEqual({ risk: 'edited' });
    expect(latest!.rows[0].outputs).toEqual({ risk: 'band 1' });
    fireEvent.change(document.querySelector('input[aria-label="age of row r3"]')!, {
      target: { value: '>= 18' },
    });
    expect(latest!.rows[2].inputConditions).toEqual({ age: '>= 18' });
    expect((screen.getByLabelText('risk of row r2') as HTMLInputElement).value).toBe('edited');
  });

  it('moves and deletes rows with the row buttons, and deletes a column from its header', () => {
    render(<Harness initial={bands(3)} />);
    fireEvent.click(screen.getByLabelText('Move row 1 down'));
    expect(latest!.rows.map((r) => r.id)).toEqual(['r2', 'r1', 'r3']);
    fireEvent.click(screen.getByLabelText('Delete row 3'));
    expect(latest!.rows.map((r) => r.id)).toEqual(['r2', 'r1']);
    fireEvent.click(screen.getByLabelText('Delete output column risk'));
    expect(latest!.outputColumns).toEqual([]);
    expect(screen.queryByLabelText('risk of row r1')).toBeNull();
  });
});
