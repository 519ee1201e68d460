import { Alert, Button, Group, Paper, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { errorText, request } from '../api';

interface Stats {
  hitRate: number;
  interceptionRate: number;
  totalInterceptions: number;
  verdicts: Record<string, number>;
  mistakesAvoided: number;
  knowledge: Record<string, number>;
  timestamp: string;
}
interface TimelineEvent {
  id?: string;
  type?: string;
  kind?: string;
  summary?: string;
  text?: string;
  createdAt?: string;
  timestamp?: string;
}

/** Experience: identity's lesson-store metrics (`GET /api/stats`) and the timeline of a topic (`GET /api/timeline`). */
export function ExperiencePage() {
  const [stats, setStats] = useState<Stats | null>(null);
  const [topic, setTopic] = useState('');
  const [events, setEvents] = useState<TimelineEvent[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    request<Stats>('identity', '/api/stats')
      .then(setStats)
      .catch((e) => setError(errorText(e)));
  }, []);
  const search = async () => {
    try {
      const r = await request<{ events: TimelineEvent[] }>('identity', '/api/timeline', { query: { topic } });
      setEvents(r.events);
    } catch (e) {
      setError(errorText(e));
    }
  };
  const figure = (label: string, value: string | number) => (
    <Paper withBorder p="sm" key={label}>
      <Text size="xs" c="gray.8">
        {label}
      </Text>
      <Text fw={700} size="lg">
        {value}
      </Text>
    </Paper>
  );

  return (
    <Stack>
      <Title order={2}>Experience</Title>
      {error && <Alert color="red">{error}</Alert>}
      {stats && (
        <SimpleGrid cols={{ base: 2, md: 4 }} data-testid="experience-stats">
          {figure('Interceptions', stats.totalInterceptions)}
          {figure('Hit rate', `${(stats.hitRate * 100).toFixed(1)} %`)}
          {figure('Mistakes avoided', stats.mistakesAvoided)}
          {figure(
            'Verdicts',
            Object.entries(stats.verdicts)
              .map(([k, v]) => `${k} ${v}`)
              .join(' · '),
          )}
          {Object.entries(stats.knowledge).map(([tier, n]) => figure(`Knowledge ${tier}`, n))}
        </SimpleGrid>
      )}
      <Group align="end">
        <TextInput label="Topic" value={topic} onChange={(e) => setTopic(e.currentTarget.value)} />
        <Button disabled={!topic.trim()} onClick={() => void search()}>
          Timeline
        </Button>
      </Group>
      {events && (
        <Table data-testid="experience-timeline">
          <Table.Tbody>
            {events.map((e, i) => (
              <Table.Tr key={e.id ?? i}>
                <Table.Td>{e.createdAt ?? e.timestamp ?? ''}</Table.Td>
                <Table.Td>{e.type ?? e.kind ?? ''}</Table.Td>
                <Table.Td>{e.summary ?? e.text ?? JSON.stringify(e)}</Table.Td>
              </Table.Tr>
            ))}
            {events.length === 0 && (
              <Table.Tr>
                <Table.Td>No events about “{topic}”.</Table.Td>
              </Table.Tr>
            )}
          </Table.Tbody>
        </Table>
      )}
    </Stack>
  );
}
