import ExcelJS from 'exceljs';
import { StoredDefinition } from '../application/table-model';
import { Cell, fromGrid, toGrid } from './grid';

/** One worksheet named "Decision table" in the grid layout (see grid.ts). */
export async function toXlsx(def: StoredDefinition): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'Arbiter';
  const sheet = workbook.addWorksheet('Decision table');
  for (const row of toGrid(def)) sheet.addRow(row);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

export async function fromXlsx(data: Buffer): Promise<Record<string, unknown>[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(data as never);
  const tables: Record<string, unknown>[] = [];
  workbook.eachSheet((sheet) => {
    const grid: Cell[][] = [];
    sheet.eachRow({ includeEmpty: true }, (row, n) => {
      const cells: Cell[] = [];
      for (let c = 1; c <= row.cellCount; c++) {
        const v = row.getCell(c).value;
        cells.push(
          v === null || v === undefined
            ? null
            : typeof v === 'object'
              ? String(
                  (v as { text?: string; result?: unknown }).text ?? (v as { result?: unknown }).result ?? '',
                )
              : (v as Cell),
        );
      }
      grid[n - 1] = cells;
    });
    for (let i = 0; i < grid.length; i++) grid[i] ??= [];
    if (grid.length) tables.push(fromGrid(grid));
  });
  return tables;
}
