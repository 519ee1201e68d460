import {
  Alert,
  Badge,
  Button,
  Code,
  FileButton,
  Grid,
  Group,
  NativeSelect,
  Paper,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { dt, errorText, request } from '../api';
import { TableGrid } from '../components/TableGrid';
import { Analysis, rowMarks } from '../feel-completion';
import { addColumn, addRow, coerce, HIT_POLICIES, TableDefinition, toBody } from '../table-model';
import { EXPORT_FORMATS, importFormat } from '../table-files';
import { ListTable } from '../components/ListTable';

const T = '/api/v1/decision-tables';

interface Summary {
  id: string;
  name: string;
  version: number;
  hitPolicy?: string;
}

export function TablesPage() {
  const [list, setList] = useState<Summary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const [importMessage, setImportMessage] = useState<string | null>(null);

  const reload = useCallback(() => {
    dt<any>(T, { query: { pageSize: 200 } })
      .then((r) => setList(Array.isArray(r) ? r : (r.items ?? r.tables ?? [])))
      .catch((e) => setError(errorText(e)));
  }, []);
  useEffect(reload, [reload]);

  const create = async () => {
    try {
      const r = await dt<{ id: string }>(T, {
        method: 'POST',
        body: {
          name: newName,
          hitPolicy: 'First',
          inputColumns: [{ name: 'age', type: 'number' }],
          outputColumns: [{ name: 'risk', type: 'string' }],
          rows: [{ id: 'r1', inputConditions: { age: '>= 18' }, outputs: { risk: 'low' } }],
          comment: 'created in the console',
        },
      });
      setNewName('');
      reload();
      setSelected(r.id);
    } catch (e) {
      setError(errorText(e));
    }
  };

  /** JSON as an array body; XLSX, DMN and CSV as a multipart upload (the service reads the file). */
  const importFile = async (file: File | null) => {
    if (!file) return;
    const format = importFormat(file.name);
    if (!format) {
      setImportMessage(`${file.name}: choose a .json, .xlsx, .dmn, .xml or .csv file`);
      return;
    }
    try {
      let options;
      if (format === 'json') {
        const parsed = JSON.parse(await file.text());
        options = { body: Array.isArray(parsed) ? parsed : [parsed] };
      } else {
        const form = new FormData();
        form.append('file', file, file.name);
        options = { rawBody: form };
      }
      const r = await dt<{ imported: number; skipped: number; failed: number; results: any[] }>(
        `${T}/import`,
        { method: 'POST', query: { format }, ...options },
      );
      setImportMessage(
        `Imported ${r.imported}, skipped ${r.skipped}, failed ${r.failed}` +
          r.results.map((x) => ` · ${x.name}: ${x.status}${x.error ? ` (${x.error})` : ''}`).join(''),
      );
      reload();
    } catch (e) {
      setImportMessage(errorText(e));
    }
  };

  return (
    <Stack>
      <Title order={2}>Decision tables</Title>
      {error && (
        <Alert color="red" withCloseButton closeButtonLabel="Dismiss" onClose={() => setError(null)}>
          {error}
        </Alert>
      )}
      <Grid>
        <Grid.Col span={{ base: 12, md: 3 }}>
          <Paper withBorder p="sm">
            <Table data-testid="table-list">
              <Table.Tbody>
                {(list ?? []).map((t) => (
                  <Table.Tr
                    key={t.id}
                    bg={t.id === selected ? 'var(--mantine-color-indigo-light)' : undefined}
                  >
                    <Table.Td>
                      <Button variant="subtle" size="compact-sm" onClick={() => setSelected(t.id)}>
                        {t.name}
                      </Button>
                    </Table.Td>
                    <Table.Td>v{t.version}</Table.Td>
                  </Table.Tr>
                ))}
                {list?.length === 0 && (
                  <Table.Tr>
                    <Table.Td>No tables yet.</Table.Td>
                  </Table.Tr>
                )}
              </Table.Tbody>
            </Table>
            <Group mt="sm" align="flex-end">
              <TextInput
                label="New table"
                value={newName}
                onChange={(e) => setNewName(e.currentTarget.value)}
              />
              <Button variant="light" disabled={!newName.trim()} onClick={() => void create()}>
                Create
              </Button>
            </Group>
            <Group mt="sm">
              <FileButton onChange={(f) => void importFile(f)} accept=".json,.xlsx,.dmn,.xml,.csv">
                {(props) => (
                  <Button variant="default" size="xs" {...props}>
                    Import JSON, XLSX, DMN…
                  </Button>
                )}
              </FileButton>
            </Group>
            {importMessage && (
              <Text size="sm" mt="xs" role="status" data-testid="import-message">
                {importMessage}
              </Text>
            )}
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 9 }}>
          {selected ? (
            <TableEditor key={selected} id={selected} onSaved={reload} />
          ) : (
            <Text c="gray.7">Choose a table.</Text>
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function TableEditor({ id, onSaved }: { id: string; onSaved: () => void }) {
  const [table, setTable] = useState<TableDefinition | null>(null);
  const [version, setVersion] = useState<number>(0);
  const [message, setMessage] = useState<{ colour: string; text: string } | null>(null);
  const [cellErrors, setCellErrors] = useState<Record<string, string>>({});
  const [analysis, setAnalysis] = useState<Analysis | null>(null);
  const [input, setInput] = useState<Record<string, string>>({});
  const [result, setResult] = useState<any>(null);
  const [newColumn, setNewColumn] = useState('');

  const load = useCallback(async () => {
    try {
      const t = await dt<TableDefinition & { version: number }>(`${T}/${id}`);
      setTable(t);
      setVersion(t.version);
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  }, [id]);
  useEffect(() => void load(), [load]);
  const marks = useMemo(() => rowMarks(analysis), [analysis]);
  if (!table) return <Text>Loading…</Text>;

  const validate = async () => {
    try {
      const r = await dt<{
        valid: boolean;
        errors: { rowId: string; column: string; message: string }[];
        analysis?: Analysis;
      }>(`${T}/validate`, { method: 'POST', body: toBody(table) });
      const errors: Record<string, string> = {};
      for (const e of r.errors ?? []) errors[`${e.rowId}:${e.column}`] = e.message;
      setCellErrors(errors);
      if (r.analysis) setAnalysis(r.analysis);
      setMessage(
        r.valid
          ? { colour: 'green', text: 'The table is valid.' }
          : {
              colour: 'red',
              text: `Invalid: ${r.errors.map((e) => `${e.rowId ?? ''} ${e.column ?? ''}: ${e.message}`).join('; ')}`,
            },
      );
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  const analyze = async () => {
    try {
      const r = await dt<Analysis>(`${T}/analyze`, { method: 'POST', body: toBody(table) });
      setAnalysis(r);
      setMessage({
        colour: r.overlapCount || r.gaps.length || r.redundantRows.length ? 'yellow' : 'green',
        text: `Analysis: ${r.overlapCount} overlapping pair(s), ${r.gaps.length}${r.gapsTruncated ? '+' : ''} gap(s), ${r.redundantRows.length} redundant row(s)${r.complete ? '' : ' (stopped at its budget: incomplete)'}.`,
      });
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  const save = async () => {
    try {
      const r = await dt<{ version: number }>(`${T}/${id}`, {
        method: 'PUT',
        body: { ...toBody(table), version, comment: 'edited in the console' },
      });
      setVersion(r.version);
      setMessage({ colour: 'green', text: `Saved version ${r.version}.` });
      onSaved();
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  const evaluate = async (facts?: Record<string, unknown>) => {
    try {
      const body: Record<string, unknown> = facts ?? {};
      if (!facts)
        for (const c of table.inputColumns)
          if ((input[c.name] ?? '') !== '') body[c.name] = coerce(input[c.name], c.type);
      setResult(await dt(`${T}/${id}/evaluate`, { method: 'POST', body: { input: body } }));
    } catch (e) {
      setResult(null);
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  const download = async (format: string, ext: string) => {
    const response = await request<Response>('decisions', `${T}/${id}/export`, {
      query: { format },
      raw: true,
    });
    const url = URL.createObjectURL(await response.blob());
    const a = document.createElement('a');
    a.href = url;
    a.download = `${table.name}.${ext}`;
    a.click();
    URL.revokeObjectURL(url);
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>{table.name}</Title>
        <Group gap="xs">
          <Badge>v{version}</Badge>
          <Text size="sm">{table.rows.length} rows</Text>
          <NativeSelect
            aria-label="Hit policy"
            data={HIT_POLICIES}
            value={table.hitPolicy}
            onChange={(e) => {
              const hitPolicy = e.currentTarget.value;
              setTable((t) => t && { ...t, hitPolicy });
            }}
          />
        </Group>
      </Group>
      {message && (
        <Alert
          color={message.colour}
          role="status"
          data-testid="table-message"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setMessage(null)}
        >
          {message.text}
        </Alert>
      )}
      <Tabs defaultValue="grid" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="grid">Grid</Tabs.Tab>
          <Tabs.Tab value="versions">Versions and diff</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="grid" pt="sm">
          <Stack>
            <TableGrid table={table} setTable={setTable} tableId={id} cellErrors={cellErrors} marks={marks} />
            {analysis && analysis.gaps.length > 0 && (
              <Alert color="yellow" title="Gaps: inputs no row matches" data-testid="table-gaps">
                <Stack gap={4}>
                  {analysis.gaps.map((g) => (
                    <Group key={g.description} gap="xs">
                      <Text size="sm">{g.description}, e.g.</Text>
                      <Code>{JSON.stringify(g.example)}</Code>
                      <Button size="compact-xs" variant="default" onClick={() => void evaluate(g.example)}>
                        Evaluate {JSON.stringify(g.example)} on v{version}
                      </Button>
                    </Group>
                  ))}
                  {analysis.gapsTruncated && <Text size="sm">(more gaps not listed)</Text>}
                </Stack>
              </Alert>
            )}
            <Group>
              <Button variant="light" onClick={() => setTable((t) => t && addRow(t))}>
                Add row
              </Button>
              <TextInput
                size="sm"
                aria-label="New column name"
                placeholder="column name"
                value={newColumn}
                onChange={(e) => setNewColumn(e.currentTarget.value)}
              />
              <Button
                variant="default"
                disabled={!newColumn.trim()}
                onClick={() => (
                  setTable((t) => t && addColumn(t, 'input', newColumn.trim())),
                  setNewColumn('')
                )}
              >
                Add input column
              </Button>
              <Button
                variant="default"
                disabled={!newColumn.trim()}
                onClick={() => (
                  setTable((t) => t && addColumn(t, 'output', newColumn.trim())),
                  setNewColumn('')
                )}
              >
                Add output column
              </Button>
            </Group>
            <Group>
              <Button variant="default" onClick={() => void validate()}>
                Validate
              </Button>
              <Button variant="default" onClick={() => void analyze()}>
                Analyze
              </Button>
              <Button onClick={() => void save()}>Save new version</Button>
              {EXPORT_FORMATS.map((f) => (
                <Button
                  key={f.format}
                  variant="default"
                  onClick={() => void download(f.format, f.format === 'excel' ? 'xlsx' : f.format)}
                >
                  Export {f.label}
                </Button>
              ))}
            </Group>
            <Paper withBorder p="sm">
              <Title order={4} mb="xs">
                Evaluate
              </Title>
              <Group align="flex-end">
                {table.inputColumns.map((c) => (
                  <TextInput
                    key={c.name}
                    label={c.name}
                    value={input[c.name] ?? ''}
                    onChange={(e) => {
                      const value = e.currentTarget.value;
                      setInput((i) => ({ ...i, [c.name]: value }));
                    }}
                  />
                ))}
                <Button onClick={() => void evaluate()}>Evaluate</Button>
              </Group>
              {result && (
                <Stack mt="sm" gap={4} data-testid="evaluate-result">
                  <Text>
                    Matched rows:{' '}
                    {(result.matchedRows ?? [])
                      .map((r: any) => (typeof r === 'object' ? (r.id ?? JSON.stringify(r)) : r))
                      .join(', ') || 'none'}
                  </Text>
                  <Text>Output: {JSON.stringify(result.outputValues)}</Text>
                </Stack>
              )}
            </Paper>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="versions" pt="sm">
          <TableVersions id={id} current={version} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

interface TableVersion {
  version: number;
  createdAt: string;
  createdBy: string;
  comment: string;
}
interface TableDiff {
  fromVersion: number;
  toVersion: number;
  changes: Record<string, { from: unknown; to: unknown }>;
  addedRows: { rowId: string; inputConditions: Record<string, unknown>; outputs: Record<string, unknown> }[];
  removedRows: string[];
  modifiedRows: { rowId: string; changes: Record<string, Record<string, { from: unknown; to: unknown }>> }[];
}

/** The table's versions (`GET …/{id}/versions`) and the service's diff of two of them. */
function TableVersions({ id, current }: { id: string; current: number }) {
  const [versions, setVersions] = useState<TableVersion[]>([]);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [diff, setDiff] = useState<TableDiff | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    dt<TableVersion[]>(`${T}/${id}/versions`, { query: { pageSize: 200 } })
      .then((v) => {
        setVersions(v);
        if (v.length > 1) {
          setFrom(String(v[1].version));
          setTo(String(v[0].version));
        }
      })
      .catch((e) => setError(errorText(e)));
  }, [id, current]);

  const compare = async () => {
    try {
      setDiff(await dt<TableDiff>(`${T}/${id}/versions/${from}/diff/${to}`));
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const options = versions.map((v) => ({ value: String(v.version), label: `v${v.version}` }));
  const json = (v: unknown) => JSON.stringify(v);

  return (
    <Stack>
      {error && <Alert color="red">{error}</Alert>}
      <ListTable testId="table-versions" columns={['Version', 'Saved', 'Comment']}>
        {versions.map((v) => (
          <Table.Tr key={v.version}>
            <Table.Td>v{v.version}</Table.Td>
            <Table.Td>
              {v.createdBy}, {new Date(v.createdAt).toLocaleString()}
            </Table.Td>
            <Table.Td>{v.comment}</Table.Td>
          </Table.Tr>
        ))}
      </ListTable>
      <Group align="end">
        <NativeSelect
          label="From"
          value={from}
          onChange={(e) => setFrom(e.currentTarget.value)}
          data={options}
        />
        <NativeSelect label="To" value={to} onChange={(e) => setTo(e.currentTarget.value)} data={options} />
        <Button variant="default" disabled={!from || !to} onClick={() => void compare()}>
          Compare
        </Button>
      </Group>
      {diff && (
        <Stack gap={4} data-testid="table-diff">
          <Text fw={600}>
            v{diff.fromVersion} → v{diff.toVersion}: {diff.addedRows.length} added, {diff.removedRows.length}{' '}
            removed, {diff.modifiedRows.length} modified row(s)
          </Text>
          {Object.entries(diff.changes).map(([field, c]) => (
            <Text key={field} size="sm">
              table <Code>{field}</Code>: {json(c.from)} → {json(c.to)}
            </Text>
          ))}
          {diff.addedRows.map((r) => (
            <Text key={`a-${r.rowId}`} size="sm" bg="var(--mantine-color-green-light)" px={4}>
              + {r.rowId}: {json(r.inputConditions)} → {json(r.outputs)}
            </Text>
          ))}
          {diff.removedRows.map((r) => (
            <Text key={`r-${r}`} size="sm" bg="var(--mantine-color-red-light)" px={4}>
              − {r}
            </Text>
          ))}
          {diff.modifiedRows.map((r) =>
            Object.entries(r.changes).flatMap(([part, fields]) =>
              // `{ outputs: { risk: { from, to } } }`, or a row field itself: `{ priority: { from, to } }`
              Object.entries(
                'from' in fields || 'to' in fields
                  ? { '': fields as unknown as { from: unknown; to: unknown } }
                  : fields,
              ).map(([field, c]) => (
                <Text
                  key={`m-${r.rowId}-${part}-${field}`}
                  size="sm"
                  bg="var(--mantine-color-yellow-light)"
                  px={4}
                >
                  ~ {r.rowId} {field ? `${part}.${field}` : part}: {json(c.from)} → {json(c.to)}
                </Text>
              )),
            ),
          )}
        </Stack>
      )}
    </Stack>
  );
}
