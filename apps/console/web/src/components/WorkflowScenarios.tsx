import { Alert, Badge, Button, Group, NumberInput, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useState } from 'react';
import { dt, errorText } from '../api';
import { useRuleSetNames } from '../hooks/useRuleSetNames';
import { ListTable } from './ListTable';
import { RuleSetSelect } from './RuleSetSelect';

interface WorkflowPlan {
  id: string;
  workflowName: string;
  workflowVersion: number;
  shape: string;
  scenarioCount: number;
  duplicatesRemoved: number;
  scenarios: {
    id: string;
    scenarioName: string;
    type: string;
    inputFacts: Record<string, unknown>;
    expectedBehavior: { matchedRows?: string[]; outputs?: Record<string, unknown>; errorCode?: string };
    status: string;
  }[];
}
interface Coverage {
  percent: number;
  rules?: { total: number; hit: number; bothSides: number; percent: number; unhit?: string[] };
  nodes?: { total: number; hit: number; percent: number };
  edges?: { total: number; hit: number; percent: number };
}
interface WorkflowRun {
  runId: string;
  workflowVersion: number;
  planVersion: number;
  kind: 'Run' | 'Gate';
  passed: boolean | null;
  reasons: string[];
  gate: { minCoverage?: number } | null;
  mutation: { mutants: number; killed: number; survived: number; score: number } | null;
  coverage: Coverage;
  scenarios: { total: number; passed: number; failed: number; errored: number };
  failures: { scenarioId: string; scenarioName?: string; status: string }[];
}

const W = '/api/v1/scenarios/workflows';
const STATUS_COLOURS: Record<string, string> = { Passed: 'green.9', Failed: 'red.9', Error: 'red.9' };

/**
 * A control-plane workflow's scenario plan (generated from a version of the rule set or flow, read by the
 * decisions service from the control plane over the bus), a run against a version with its coverage
 * (rules both ways; flows also nodes and edges), and the CI gate (`passed` with the reasons and the
 * mutation score) — what an approver checks when the control plane requires a passing gate.
 */
export function WorkflowScenarios() {
  const { names } = useRuleSetNames();
  const [workflow, setWorkflow] = useState('');
  const [version, setVersion] = useState<number | ''>('');
  const [minCoverage, setMinCoverage] = useState<number | ''>(90);
  const [plan, setPlan] = useState<WorkflowPlan | null>(null);
  const [run, setRun] = useState<WorkflowRun | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const path = `${W}/${encodeURIComponent(workflow)}`;
  const versionBody = version === '' ? {} : { version };

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const generate = () =>
    act(async () => {
      setRun(null);
      setPlan(await dt<WorkflowPlan>(`${path}/plan`, { method: 'POST', body: versionBody }));
    });
  /** the plan read back (its scenarios' statuses); a plan read back does not know its shape: keep it */
  const reread = async () => {
    const read = await dt<WorkflowPlan>(`${path}/plan`);
    setPlan((prev) => ({ ...read, shape: read.shape === 'unknown' && prev ? prev.shape : read.shape }));
  };
  const runPlan = () =>
    act(async () => {
      setRun(await dt<WorkflowRun>(`${path}/runs`, { method: 'POST', body: versionBody }));
      await reread();
    });
  const gate = () =>
    act(async () => {
      const body = { ...versionBody, ...(minCoverage === '' ? {} : { minCoverage }) };
      setRun(await dt<WorkflowRun>(`${path}/gate`, { method: 'POST', body }));
      await reread();
    });

  return (
    <Stack data-testid="workflow-scenarios">
      <Title order={3}>Workflow scenarios and gate</Title>
      {error && (
        <Alert color="red" data-testid="workflow-scenario-error">
          {error}
        </Alert>
      )}
      <Group align="end">
        <RuleSetSelect
          names={names}
          value={workflow}
          onChange={(next) => {
            setWorkflow(next);
            setPlan(null);
            setRun(null);
          }}
        />
        <NumberInput
          label="Version"
          placeholder="active"
          min={1}
          w={150}
          value={version}
          onChange={(v) => setVersion(typeof v === 'number' ? v : '')}
        />
        <NumberInput
          label="Minimum coverage %"
          min={0}
          max={100}
          w={180}
          value={minCoverage}
          onChange={(v) => setMinCoverage(typeof v === 'number' ? v : '')}
        />
        <Button disabled={!workflow || busy} onClick={() => void generate()}>
          Generate workflow plan
        </Button>
        <Button disabled={!plan || busy} variant="default" onClick={() => void runPlan()}>
          Run workflow plan
        </Button>
        <Button disabled={!workflow || busy} variant="default" onClick={() => void gate()}>
          Run gate
        </Button>
      </Group>
      {run && (
        <Paper withBorder p="sm" data-testid="workflow-run">
          <Group gap="xs">
            {run.kind === 'Gate' && (
              <Badge color={run.passed ? 'green.9' : 'red.9'} data-testid="workflow-gate-verdict">
                gate {run.passed ? 'passed' : 'failed'}
              </Badge>
            )}
            <Text fw={600}>
              {run.kind} on v{run.workflowVersion} (plan from v{run.planVersion}): {run.scenarios.passed} of{' '}
              {run.scenarios.total} passed, {run.scenarios.failed} failed, {run.scenarios.errored} errors
            </Text>
          </Group>
          <Text size="sm">
            Coverage {run.coverage.percent} %
            {run.coverage.rules &&
              ` · rules both ways ${run.coverage.rules.bothSides}/${run.coverage.rules.total}`}
            {!!run.coverage.nodes?.total && ` · nodes ${run.coverage.nodes.hit}/${run.coverage.nodes.total}`}
            {!!run.coverage.edges?.total && ` · edges ${run.coverage.edges.hit}/${run.coverage.edges.total}`}
            {run.mutation &&
              ` · mutation score ${run.mutation.score} % (${run.mutation.killed} of ${run.mutation.mutants} mutants killed)`}
          </Text>
          {run.reasons.length > 0 && (
            <Text size="sm" c="red.9" data-testid="workflow-gate-reasons">
              {run.reasons.join('; ')}
            </Text>
          )}
          {run.failures.length > 0 && (
            <Text size="sm">
              Failed: {run.failures.map((f) => f.scenarioName ?? f.scenarioId).join(', ')}
            </Text>
          )}
        </Paper>
      )}
      {plan && (
        <>
          <Text size="sm" data-testid="workflow-plan-summary">
            Plan of {plan.workflowName} v{plan.workflowVersion} ({plan.shape}): {plan.scenarioCount}{' '}
            scenario(s), {plan.duplicatesRemoved} duplicate(s) removed
          </Text>
          <ListTable testId="workflow-plan" columns={['Scenario', 'Type', 'Input', 'Expected', 'Status']}>
            {plan.scenarios.map((s) => (
              <Table.Tr key={s.id}>
                <Table.Td>{s.scenarioName}</Table.Td>
                <Table.Td>{s.type}</Table.Td>
                <Table.Td>{JSON.stringify(s.inputFacts)}</Table.Td>
                <Table.Td>
                  {(s.expectedBehavior.matchedRows ?? []).join(', ') || 'nothing matched'}
                  {s.expectedBehavior.errorCode ? ` · error ${s.expectedBehavior.errorCode}` : ''}
                </Table.Td>
                <Table.Td>
                  <Badge color={STATUS_COLOURS[s.status] ?? 'gray'}>{s.status}</Badge>
                </Table.Td>
              </Table.Tr>
            ))}
          </ListTable>
        </>
      )}
    </Stack>
  );
}
