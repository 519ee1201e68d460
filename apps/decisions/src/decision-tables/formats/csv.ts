import { Cell, exportCell, fromGrid, toGrid } from './grid';
import { StoredDefinition } from '../application/table-model';
import { ImportLimitExceeded } from './import-limits';

const quote = (c: Cell): string => {
  if (c === null) return '';
  const s = String(c);
  return /[",\r\n]/.test(s) || s !== s.trim() ? `"${s.replace(/"/g, '""')}"` : s;
};

/** The grid as CSV; text cells a spreadsheet would run as formulas are escaped (`escapeFormula`). */
export function toCsv(def: StoredDefinition): string {
  return (
    toGrid(def)
      .map((r) => r.map((c) => quote(exportCell(c))).join(','))
      .join('\r\n') + '\r\n'
  );
}

/**
 * RFC 4180 parsing (quoted fields, doubled quotes, CRLF or LF). More than `maxRecords` records throws
 * ImportLimitExceeded as soon as the next one starts (the rest is not parsed).
 */
export function parseCsv(text: string, maxRecords = Infinity): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else field += ch;
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      if (rows.length > maxRecords) throw ImportLimitExceeded.rows(maxRecords);
      row = [];
      field = '';
    } else field += ch;
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
    if (rows.length > maxRecords) throw ImportLimitExceeded.rows(maxRecords);
  }
  return rows;
}

/** A CSV file's table; at most `maxLines` lines (metadata, header and rows). */
export function fromCsv(text: string, maxLines = Infinity): Record<string, unknown> {
  return fromGrid(parseCsv(text.replace(/^\uFEFF/, ''), maxLines));
}
