/** The import format of an uploaded file by its extension (the decisions service's `format` values). */
export function importFormat(fileName: string): 'json' | 'excel' | 'dmn' | 'csv' | null {
  const ext = fileName.toLowerCase().split('.').pop() ?? '';
  if (ext === 'json') return 'json';
  if (ext === 'xlsx') return 'excel';
  if (ext === 'dmn' || ext === 'xml') return 'dmn';
  if (ext === 'csv') return 'csv';
  return null;
}

/** The export formats offered for download: label and the service's `format`. */
export const EXPORT_FORMATS = [
  { label: 'JSON', format: 'json' },
  { label: 'XLSX', format: 'excel' },
  { label: 'DMN', format: 'dmn' },
] as const;
