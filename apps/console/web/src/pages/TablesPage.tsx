import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  FileButton,
  Grid,
  Group,
  NativeSelect,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { dt, errorText, request } from '../api';
import {
  addColumn,
  addRow,
  coerce,
  deleteColumn,
  deleteRow,
  display,
  HIT_POLICIES,
  moveRow,
  setCell,
  TableDefinition,
  toBody,
} from '../table-model';

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

  const importJson = async (file: File | null) => {
    if (!file) return;
    try {
      const parsed = JSON.parse(await file.text());
      const r = await dt<{ imported: number; skipped: number; failed: number; results: any[] }>(
        `${T}/import`,
        {
          method: 'POST',
          query: { format: 'json' },
          body: Array.isArray(parsed) ? parsed : [parsed],
        },
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
              <FileButton onChange={(f) => void importJson(f)} accept="application/json,.json">
                {(props) => (
                  <Button variant="default" size="xs" {...props}>
                    Import JSON…
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
  if (!table) return <Text>Loading…</Text>;

  const validate = async () => {
    try {
      const r = await dt<{ valid: boolean; errors: { rowId: string; column: string; message: string }[] }>(
        `${T}/validate`,
        { method: 'POST', body: toBody(table) },
      );
      const errors: Record<string, string> = {};
      for (const e of r.errors ?? []) errors[`${e.rowId}:${e.column}`] = e.message;
      setCellErrors(errors);
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

  const evaluate = async () => {
    try {
      const facts: Record<string, unknown> = {};
      for (const c of table.inputColumns)
        if ((input[c.name] ?? '') !== '') facts[c.name] = coerce(input[c.name], c.type);
      setResult(await dt(`${T}/${id}/evaluate`, { method: 'POST', body: { input: facts } }));
    } catch (e) {
      setResult(null);
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  const exportJson = async () => {
    const response = await request<Response>('decisions', `${T}/${id}/export`, {
      query: { format: 'json' },
      raw: true,
    });
    const blob = await response.blob();
    const url = URL.createObjectURL(blob);
    const a = document.createElement('a');
    a.href = url;
    a.download = `${table.name}.json`;
    a.click();
    URL.revokeObjectURL(url);
  };

  const cellInput = (rowId: string, column: string, value: string, onChange: (v: string) => void) => {
    const err = cellErrors[`${rowId}:${column}`];
    return (
      <TextInput
        size="xs"
        aria-label={`${column} of row ${rowId}`}
        value={value}
        error={err}
        onChange={(e) => onChange(e.currentTarget.value)}
        styles={{ input: { fontFamily: 'monospace' } }}
      />
    );
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>{table.name}</Title>
        <Group gap="xs">
          <Badge>v{version}</Badge>
          <NativeSelect
            aria-label="Hit policy"
            data={HIT_POLICIES}
            value={table.hitPolicy}
            onChange={(e) => setTable({ ...table, hitPolicy: e.currentTarget.value })}
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
      <Paper withBorder style={{ overflowX: 'auto' }}>
        <Table data-testid="table-grid" withColumnBorders>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>#</Table.Th>
              {table.inputColumns.map((c) => (
                <Table.Th key={`in-${c.name}`} bg="var(--mantine-color-blue-light)">
                  <Group gap={4} wrap="nowrap">
                    <span>{c.name}</span>
                    <Text size="xs" c="gray.7">
                      in{c.type ? `: ${c.type}` : ''}
                    </Text>
                    <ActionIcon
                      size="xs"
                      variant="subtle"
                      color="red"
                      aria-label={`Delete input column ${c.name}`}
                      onClick={() => setTable(deleteColumn(table, 'input', c.name))}
                    >
                      ×
                    </ActionIcon>
                  </Group>
                </Table.Th>
              ))}
              {table.outputColumns.map((c) => (
                <Table.Th key={`out-${c.name}`} bg="var(--mantine-color-green-light)">
                  <Group gap={4} wrap="nowrap">
                    <span>{c.name}</span>
                    <Text size="xs" c="gray.7">
                      out{c.type ? `: ${c.type}` : ''}
                    </Text>
                    <ActionIcon
                      size="xs"
                      variant="subtle"
                      color="red"
                      aria-label={`Delete output column ${c.name}`}
                      onClick={() => setTable(deleteColumn(table, 'output', c.name))}
                    >
                      ×
                    </ActionIcon>
                  </Group>
                </Table.Th>
              ))}
              <Table.Th>Row</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {table.rows.map((row, index) => (
              <Table.Tr key={row.id}>
                <Table.Td>{index + 1}</Table.Td>
                {table.inputColumns.map((c) => (
                  <Table.Td key={c.name}>
                    {cellInput(row.id, c.name, row.inputConditions?.[c.name] ?? '', (v) =>
                      setTable(setCell(table, index, 'input', c.name, v)),
                    )}
                  </Table.Td>
                ))}
                {table.outputColumns.map((c) => (
                  <Table.Td key={c.name}>
                    {cellInput(row.id, c.name, display(row.outputs?.[c.name]), (v) =>
                      setTable(setCell(table, index, 'output', c.name, v)),
                    )}
                  </Table.Td>
                ))}
                <Table.Td>
                  <Group gap={2} wrap="nowrap">
                    <ActionIcon
                      size="sm"
                      variant="subtle"
                      aria-label={`Move row ${index + 1} up`}
                      onClick={() => setTable(moveRow(table, index, -1))}
                    >
                      ↑
                    </ActionIcon>
                    <ActionIcon
                      size="sm"
                      variant="subtle"
                      aria-label={`Move row ${index + 1} down`}
                      onClick={() => setTable(moveRow(table, index, 1))}
                    >
                      ↓
                    </ActionIcon>
                    <ActionIcon
                      size="sm"
                      variant="subtle"
                      color="red"
                      aria-label={`Delete row ${index + 1}`}
                      onClick={() => setTable(deleteRow(table, index))}
                    >
                      ×
                    </ActionIcon>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Paper>
      <Group>
        <Button variant="light" onClick={() => setTable(addRow(table))}>
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
          onClick={() => (setTable(addColumn(table, 'input', newColumn.trim())), setNewColumn(''))}
        >
          Add input column
        </Button>
        <Button
          variant="default"
          disabled={!newColumn.trim()}
          onClick={() => (setTable(addColumn(table, 'output', newColumn.trim())), setNewColumn(''))}
        >
          Add output column
        </Button>
      </Group>
      <Group>
        <Button variant="default" onClick={() => void validate()}>
          Validate
        </Button>
        <Button onClick={() => void save()}>Save new version</Button>
        <Button variant="default" onClick={() => void exportJson()}>
          Export JSON
        </Button>
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
  );
}
