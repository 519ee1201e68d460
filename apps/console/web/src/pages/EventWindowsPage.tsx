import {
  Alert,
  Badge,
  Button,
  Grid,
  Group,
  MultiSelect,
  NativeSelect,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { dt, errorText } from '../api';
import { JsonEditor } from '../components/JsonEditor';

interface WindowConfig {
  Id: string;
  Name: string;
  WindowType: string;
  WindowSize: string;
  TimeToLive: string;
  CorrelationKey: string;
  AllowedLateness?: string;
  ValuePath?: string | null;
  Aggregates?: string[];
  EmitMode?: string;
  Version?: number;
}
interface SimulateResult {
  Results: {
    Index: number;
    Key: string;
    Timestamp: string;
    Status: string;
    Window?: { Start: string; End: string; Count: number; Aggregates: Record<string, unknown> };
  }[];
  Processed: number;
  Accepted: number;
  Late: number;
  Evicted: number;
}

const CEP = '/api/v1/rule-engine/cep';
const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max', 'distinctCount', 'first', 'last'];
const BLANK: WindowConfig = {
  Id: '',
  Name: '',
  WindowType: 'Sliding',
  WindowSize: 'PT10M',
  TimeToLive: 'PT1H',
  CorrelationKey: 'userId',
  AllowedLateness: 'PT30S',
  Aggregates: ['count', 'max'],
  EmitMode: 'OnUpdate',
};
const STATUS_COLOURS: Record<string, string> = { Accepted: 'green.9', Late: 'orange', Evicted: 'red.9' };

/** Event windows (CEP): the tenant's window configurations, saved with PUT, and a simulate view. */
export function EventWindowsPage() {
  const [list, setList] = useState<WindowConfig[]>([]);
  const [form, setForm] = useState<WindowConfig>(BLANK);
  const [message, setMessage] = useState<{ colour: string; text: string } | null>(null);
  const [events, setEvents] = useState('');
  const [result, setResult] = useState<SimulateResult | null>(null);

  const reload = useCallback(() => {
    dt<WindowConfig[]>(CEP)
      .then(setList)
      .catch((e) => setMessage({ colour: 'red', text: errorText(e) }));
  }, []);
  useEffect(reload, [reload]);

  const open = (config: WindowConfig) => {
    setForm(config);
    setResult(null);
    const t = Date.parse('2026-01-01T10:00:00Z');
    const at = (minutes: number) => new Date(t + minutes * 60_000).toISOString();
    setEvents(
      JSON.stringify(
        [
          { Key: 'alice', Timestamp: at(0), Value: 1 },
          { Key: 'alice', Timestamp: at(4), Value: 3 },
          { Key: 'alice', Timestamp: at(-10), Value: 1 },
        ],
        null,
        2,
      ),
    );
  };
  const set = (field: keyof WindowConfig) => (value: unknown) => setForm((f) => ({ ...f, [field]: value }));

  const save = async () => {
    try {
      const { Id, Version: _version, ...body } = form;
      const saved = await dt<WindowConfig>(`${CEP}/${encodeURIComponent(Id)}`, { method: 'PUT', body });
      setMessage({ colour: 'green', text: `Saved ${saved.Id} (version ${saved.Version}).` });
      open(saved);
      reload();
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };
  const simulate = async () => {
    try {
      setResult(
        await dt<SimulateResult>(`${CEP}/${encodeURIComponent(form.Id)}/simulate`, {
          method: 'POST',
          body: { Events: JSON.parse(events) },
        }),
      );
    } catch (e) {
      setResult(null);
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  return (
    <Stack>
      <Title order={2}>Event windows</Title>
      {message && (
        <Alert
          color={message.colour}
          role="status"
          data-testid="cep-message"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setMessage(null)}
        >
          {message.text}
        </Alert>
      )}
      <Grid>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Paper withBorder p="sm">
            <Table data-testid="cep-list">
              <Table.Tbody>
                {list.map((c) => (
                  <Table.Tr key={c.Id}>
                    <Table.Td>
                      <Button variant="subtle" size="compact-sm" onClick={() => open(c)}>
                        {c.Id}
                      </Button>
                    </Table.Td>
                    <Table.Td>
                      {c.WindowType} {c.WindowSize}
                    </Table.Td>
                  </Table.Tr>
                ))}
                {list.length === 0 && (
                  <Table.Tr>
                    <Table.Td>No event windows yet.</Table.Td>
                  </Table.Tr>
                )}
              </Table.Tbody>
            </Table>
            <Button mt="sm" variant="light" onClick={() => open(BLANK)}>
              New event window
            </Button>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          <Stack>
            <Group align="end" grow>
              <TextInput label="Id" value={form.Id} onChange={(e) => set('Id')(e.currentTarget.value)} />
              <TextInput
                label="Name"
                value={form.Name}
                onChange={(e) => set('Name')(e.currentTarget.value)}
              />
              <NativeSelect
                label="Window type"
                value={form.WindowType}
                onChange={(e) => set('WindowType')(e.currentTarget.value)}
                data={['Sliding', 'Tumbling', 'Session']}
              />
            </Group>
            <Group align="end" grow>
              <TextInput
                label="Window size"
                value={form.WindowSize}
                onChange={(e) => set('WindowSize')(e.currentTarget.value)}
              />
              <TextInput
                label="Time to live"
                value={form.TimeToLive}
                onChange={(e) => set('TimeToLive')(e.currentTarget.value)}
              />
              <TextInput
                label="Allowed lateness"
                value={form.AllowedLateness ?? ''}
                onChange={(e) => set('AllowedLateness')(e.currentTarget.value)}
              />
              <TextInput
                label="Correlation key"
                value={form.CorrelationKey}
                onChange={(e) => set('CorrelationKey')(e.currentTarget.value)}
              />
            </Group>
            <Group align="end" grow>
              <MultiSelect
                label="Aggregates"
                data={AGGREGATES}
                value={form.Aggregates ?? []}
                onChange={set('Aggregates')}
              />
              <NativeSelect
                label="Emit mode"
                value={form.EmitMode ?? 'OnUpdate'}
                onChange={(e) => set('EmitMode')(e.currentTarget.value)}
                data={['OnUpdate', 'OnClose']}
              />
            </Group>
            <Group>
              <Button disabled={!form.Id.trim()} onClick={() => void save()}>
                Save event window
              </Button>
              {form.Version && <Badge>v{form.Version}</Badge>}
            </Group>
            {form.Version && (
              <Paper withBorder p="sm">
                <Title order={3} size="h4" mb="xs">
                  Simulate
                </Title>
                <JsonEditor
                  label="Events"
                  value={events}
                  onChange={setEvents}
                  testId="cep-events"
                  minRows={6}
                />
                <Button mt="xs" onClick={() => void simulate()}>
                  Simulate
                </Button>
                {result && (
                  <Stack mt="sm" gap={4} data-testid="cep-result">
                    <Text>
                      Processed {result.Processed}, accepted {result.Accepted}, late {result.Late}, evicted{' '}
                      {result.Evicted}
                    </Text>
                    <Table>
                      <Table.Thead>
                        <Table.Tr>
                          <Table.Th>#</Table.Th>
                          <Table.Th>Key</Table.Th>
                          <Table.Th>Event time</Table.Th>
                          <Table.Th>Status</Table.Th>
                          <Table.Th>Window</Table.Th>
                          <Table.Th>Aggregates</Table.Th>
                        </Table.Tr>
                      </Table.Thead>
                      <Table.Tbody>
                        {result.Results.map((r) => (
                          <Table.Tr key={r.Index}>
                            <Table.Td>{r.Index}</Table.Td>
                            <Table.Td>{r.Key}</Table.Td>
                            <Table.Td>{r.Timestamp}</Table.Td>
                            <Table.Td>
                              <Badge color={STATUS_COLOURS[r.Status] ?? 'gray'}>{r.Status}</Badge>
                            </Table.Td>
                            <Table.Td>
                              {r.Window ? `${r.Window.Start} → ${r.Window.End} (${r.Window.Count})` : ''}
                            </Table.Td>
                            <Table.Td>{r.Window ? JSON.stringify(r.Window.Aggregates) : ''}</Table.Td>
                          </Table.Tr>
                        ))}
                      </Table.Tbody>
                    </Table>
                  </Stack>
                )}
              </Paper>
            )}
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
