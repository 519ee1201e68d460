import {
  Alert,
  Badge,
  Button,
  Group,
  NativeSelect,
  Paper,
  Progress,
  Stack,
  Table,
  Text,
  Title,
} from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { dt, errorText } from '../api';
import { WorkflowScenarios } from '../components/WorkflowScenarios';
import { ListTable } from '../components/ListTable';

interface Scenario {
  id: string;
  scenarioName: string;
  type: string;
  inputFacts: Record<string, unknown>;
  expectedBehavior: { matchedRows?: string[]; outputs?: Record<string, unknown> };
  status: string;
}
interface Plan {
  id: string;
  tableVersion: number;
  scenarioCount: number;
  scenarios: Scenario[];
}
interface Run {
  total: number;
  passed: number;
  failed: number;
  errored: number;
  tableVersion: number;
  coverage: {
    rows: { total: number; hit: number; percent: number; unhit: string[] };
    conditions: { total: number; bothSides: number; percent: number };
  };
  failures: { scenarioName?: string; scenarioId: string; analysis?: unknown }[];
}
interface Statistics {
  plans: number;
  scenarios: number;
  runs: number;
  passed: number;
  failed: number;
  coverage: { meanRowCoverage: number | null; meanConditionCoverage: number | null };
}

const S = '/api/v1/scenarios';
const STATUS_COLOURS: Record<string, string> = {
  Passed: 'green.9',
  Failed: 'red.9',
  Error: 'red.9',
  Pending: 'gray',
};

/**
 * Scenarios: a decision table's generated plan, a run with its coverage, and the tenant's statistics;
 * below, a control-plane workflow's plan, run and CI gate (`WorkflowScenarios`).
 */
export function ScenariosPage() {
  const [tables, setTables] = useState<{ id: string; name: string }[]>([]);
  const [tableId, setTableId] = useState('');
  const [plan, setPlan] = useState<Plan | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  const [stats, setStats] = useState<Statistics | null>(null);
  const [error, setError] = useState<string | null>(null);

  const loadStats = useCallback(() => {
    dt<Statistics>(`${S}/statistics`)
      .then(setStats)
      .catch((e) => setError(errorText(e)));
  }, []);
  useEffect(() => {
    dt<any>('/api/v1/decision-tables', { query: { pageSize: 200 } })
      .then((r) => setTables(Array.isArray(r) ? r : (r.items ?? [])))
      .catch((e) => setError(errorText(e)));
    loadStats();
  }, [loadStats]);

  const act = async (work: () => Promise<void>) => {
    try {
      setError(null);
      await work();
      loadStats();
    } catch (e) {
      setError(errorText(e));
    }
  };
  const generate = () =>
    act(async () => {
      setRun(null);
      setPlan(await dt<Plan>(`${S}/plans`, { method: 'POST', body: { tableId } }));
    });
  const runPlan = () =>
    act(async () => {
      setRun(await dt<Run>(`${S}/plans/${plan!.id}/runs`, { method: 'POST', body: {} }));
      setPlan(await dt<Plan>(`${S}/plans/${plan!.id}`));
    });

  return (
    <Stack>
      <Title order={2}>Scenarios</Title>
      {error && <Alert color="red">{error}</Alert>}
      {stats && (
        <Text size="sm" data-testid="scenario-statistics">
          This tenant: {stats.plans} plan(s), {stats.scenarios} scenario(s), {stats.runs} run(s),{' '}
          {stats.passed} passed, {stats.failed} failed; mean row coverage{' '}
          {stats.coverage.meanRowCoverage ?? '—'} %, condition coverage{' '}
          {stats.coverage.meanConditionCoverage ?? '—'} %.
        </Text>
      )}
      <Group align="end">
        <NativeSelect
          label="Decision table"
          value={tableId}
          onChange={(e) => {
            setTableId(e.currentTarget.value);
            setPlan(null);
            setRun(null);
          }}
          data={[
            { value: '', label: 'choose a table' },
            ...tables.map((t) => ({ value: t.id, label: t.name })),
          ]}
        />
        <Button disabled={!tableId} onClick={() => void generate()}>
          Generate plan
        </Button>
        <Button disabled={!plan} variant="default" onClick={() => void runPlan()}>
          Run plan
        </Button>
      </Group>
      {run && (
        <Paper withBorder p="sm" data-testid="scenario-run">
          <Text fw={600}>
            Run on v{run.tableVersion}: {run.passed} of {run.total} passed, {run.failed} failed, {run.errored}{' '}
            errors
          </Text>
          <Group mt="xs" grow>
            <Stack gap={2}>
              <Text size="sm">
                Row coverage {run.coverage.rows.percent} % ({run.coverage.rows.hit}/{run.coverage.rows.total})
                {run.coverage.rows.unhit.length ? `, never hit: ${run.coverage.rows.unhit.join(', ')}` : ''}
              </Text>
              <Progress value={run.coverage.rows.percent} aria-label="row coverage" />
            </Stack>
            <Stack gap={2}>
              <Text size="sm">
                Condition coverage {run.coverage.conditions.percent} % ({run.coverage.conditions.bothSides}/
                {run.coverage.conditions.total} both sides)
              </Text>
              <Progress value={run.coverage.conditions.percent} aria-label="condition coverage" />
            </Stack>
          </Group>
        </Paper>
      )}
      {plan && (
        <ListTable testId="scenario-plan" columns={['Scenario', 'Type', 'Input', 'Expected', 'Status']}>
          {plan.scenarios.map((s) => (
            <Table.Tr key={s.id}>
              <Table.Td>{s.scenarioName}</Table.Td>
              <Table.Td>{s.type}</Table.Td>
              <Table.Td>{JSON.stringify(s.inputFacts)}</Table.Td>
              <Table.Td>
                {(s.expectedBehavior.matchedRows ?? []).join(', ') || 'no row'}{' '}
                {s.expectedBehavior.outputs ? JSON.stringify(s.expectedBehavior.outputs) : ''}
              </Table.Td>
              <Table.Td>
                <Badge color={STATUS_COLOURS[s.status] ?? 'gray'}>{s.status}</Badge>
              </Table.Td>
            </Table.Tr>
          ))}
        </ListTable>
      )}
      <WorkflowScenarios />
    </Stack>
  );
}
