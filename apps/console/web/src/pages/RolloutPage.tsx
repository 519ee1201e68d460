import {
  Alert,
  Badge,
  Button,
  Group,
  NativeSelect,
  NumberInput,
  Paper,
  Progress,
  SegmentedControl,
  Stack,
  Table,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { cp, errorText } from '../api';
import { useHashWorkflow, useRuleSetNames } from '../hooks/useRuleSetNames';
import { onHubEvent } from '../hub';
import { ListTable } from '../components/ListTable';
import { RuleSetSelect } from '../components/RuleSetSelect';

interface Rollout {
  rolloutId: string;
  workflowName: string;
  version: number;
  previousActiveVersion: number | null;
  status: 'Active' | 'Promoted' | 'RolledBack';
  targetPercentage: number | null;
  targetTenantIds: string[] | null;
  createdAt: string;
  createdBy: string;
  promotedAt: string | null;
  rolledBackAt: string | null;
  reason: string | null;
}
interface CanaryState {
  workflowName: string;
  activeVersion: number | null;
  canary: Rollout | null;
  rollouts: Rollout[];
}
interface Arm {
  arm: 'active' | 'canary';
  version: number;
  executions: number;
  errors: number;
  errorRate: number;
}
interface Metrics {
  arms: Arm[];
  progress?: { percentage: number; tenantsAffected: number; totalTenants: number };
}
interface Version {
  version: number;
  status: string;
}

const A = '/api/v1/rule-engine/rulesets';
const B = '/api/v1/control-plane';
const enc = encodeURIComponent;
/** per-arm figures come from the execution audit: read again this often while a canary runs */
const METRICS_EVERY_MS = 2_000;

export const ROLLOUT_COLOURS: Record<Rollout['status'], string> = {
  Active: 'blue',
  Promoted: 'green.9',
  RolledBack: 'red.9',
};

const targets = (r: Rollout) =>
  r.targetTenantIds?.length
    ? `tenants ${r.targetTenantIds.join(', ')}`
    : `${r.targetPercentage ?? 1} % of traffic`;

/** Rollout: the active version, a canary (percentage or tenants) with per-arm figures, promote, rollback. */
export function RolloutPage() {
  const { names, error: listError } = useRuleSetNames();
  const [workflow, setWorkflow] = useHashWorkflow('rollout');
  const [state, setState] = useState<CanaryState | null>(null);
  const [versions, setVersions] = useState<Version[]>([]);
  const [metrics, setMetrics] = useState<Metrics | null>(null);
  const [message, setMessage] = useState<{ colour: string; text: string } | null>(null);
  const [mode, setMode] = useState<'percentage' | 'tenants'>('percentage');
  const [version, setVersion] = useState('');
  const [percentage, setPercentage] = useState<number | string>(10);
  const [tenants, setTenants] = useState<string[]>([]);
  const [reason, setReason] = useState('');

  const reload = useCallback(() => {
    if (!workflow) return;
    cp<CanaryState>(`${B}/canary/${enc(workflow)}`)
      .then(setState)
      .catch((e) => setMessage({ colour: 'red', text: errorText(e) }));
    cp<{ versions: Version[] }>(`${B}/rulesets/${enc(workflow)}/versions`)
      .then((r) => setVersions(r.versions))
      .catch(() => setVersions([]));
  }, [workflow]);
  useEffect(() => {
    setState(null);
    setMetrics(null);
    reload();
  }, [reload]);
  useEffect(
    () =>
      onHubEvent((e) => {
        if (e.payload?.workflowName === workflow) reload();
      }),
    [reload, workflow],
  );

  const rolloutId = state?.canary?.rolloutId;
  useEffect(() => {
    if (!rolloutId) return;
    let stopped = false;
    const read = () =>
      cp<Metrics>(`${A}/${enc(workflow)}/canary/${rolloutId}`)
        .then((m) => !stopped && setMetrics(m))
        .catch(() => undefined);
    void read();
    const timer = setInterval(read, METRICS_EVERY_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [rolloutId, workflow]);

  const act = async (what: string, run: () => Promise<unknown>) => {
    try {
      await run();
      setMessage({ colour: 'green', text: what });
      reload();
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };
  const start = () =>
    act(`Canary of v${version} started.`, () =>
      cp(`${B}/canary/${enc(workflow)}/${version}/start`, {
        method: 'POST',
        body: mode === 'percentage' ? { targetPercentage: Number(percentage) } : { targetTenantIds: tenants },
      }),
    );
  const promote = () =>
    act(`Canary v${state?.canary?.version} promoted.`, () =>
      cp(`${B}/canary/${enc(workflow)}/promote`, { method: 'POST', body: {} }),
    );
  const rollback = () =>
    act(`Canary v${state?.canary?.version} rolled back.`, () =>
      cp(`${B}/canary/${enc(workflow)}/rollback`, { method: 'POST', body: { reason } }),
    );

  const candidates = versions.filter((v) => v.version !== state?.activeVersion);
  const canary = state?.canary;

  return (
    <Stack>
      <Title order={2}>Rollout</Title>
      {listError && <Alert color="red">{listError}</Alert>}
      <RuleSetSelect names={names} value={workflow} onChange={setWorkflow} maw={360} />
      {message && (
        <Alert
          color={message.colour}
          role="status"
          data-testid="rollout-message"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setMessage(null)}
        >
          {message.text}
        </Alert>
      )}
      {state && (
        <>
          <Text data-testid="rollout-active">
            Active version: <b>{state.activeVersion ?? 'none'}</b>
          </Text>
          {canary ? (
            <Paper withBorder p="md" data-testid="canary-running">
              <Stack gap="sm">
                <Group>
                  <Title order={3} size="h4">
                    Canary v{canary.version}
                  </Title>
                  <Badge color={ROLLOUT_COLOURS[canary.status]}>{canary.status}</Badge>
                  <Text size="sm">
                    {targets(canary)} · started by {canary.createdBy},{' '}
                    {new Date(canary.createdAt).toLocaleString()}
                  </Text>
                </Group>
                <ListTable
                  testId="canary-arms"
                  columns={['Arm', 'Version', 'Executions', 'Errors', 'Error rate']}
                >
                  {(metrics?.arms ?? []).map((arm) => (
                    <Table.Tr key={arm.arm} data-testid={`arm-${arm.arm}`}>
                      <Table.Td>{arm.arm}</Table.Td>
                      <Table.Td>v{arm.version}</Table.Td>
                      <Table.Td data-testid={`arm-${arm.arm}-executions`}>{arm.executions}</Table.Td>
                      <Table.Td>{arm.errors}</Table.Td>
                      <Table.Td>
                        <Group gap="xs" wrap="nowrap">
                          <Progress
                            w={120}
                            value={arm.errorRate * 100}
                            color={arm.errorRate > 0.05 ? 'red' : 'green'}
                            aria-label={`error rate of the ${arm.arm} arm`}
                          />
                          <Text size="sm">{(arm.errorRate * 100).toFixed(1)} %</Text>
                        </Group>
                      </Table.Td>
                    </Table.Tr>
                  ))}
                </ListTable>
                <Text size="xs" c="gray.7">
                  From the execution audit, read every {METRICS_EVERY_MS / 1000} s; state changes arrive over
                  the hub.
                </Text>
                <Group align="end">
                  <Button color="green" onClick={() => void promote()}>
                    Promote
                  </Button>
                  <TextInput
                    label="Rollback reason"
                    value={reason}
                    onChange={(e) => setReason(e.currentTarget.value)}
                  />
                  <Button color="red.9" variant="outline" onClick={() => void rollback()}>
                    Roll back
                  </Button>
                </Group>
              </Stack>
            </Paper>
          ) : (
            <Paper withBorder p="md" data-testid="canary-start">
              <Stack gap="sm">
                <Title order={3} size="h4">
                  Start a canary
                </Title>
                <Group align="end">
                  <NativeSelect
                    label="Version"
                    value={version}
                    onChange={(e) => setVersion(e.currentTarget.value)}
                    data={[
                      { value: '', label: 'choose' },
                      ...candidates.map((v) => ({
                        value: String(v.version),
                        label: `v${v.version} (${v.status})`,
                      })),
                    ]}
                  />
                  <SegmentedControl
                    aria-label="Target"
                    value={mode}
                    onChange={(v) => setMode(v as 'percentage' | 'tenants')}
                    data={[
                      { value: 'percentage', label: 'Percentage' },
                      { value: 'tenants', label: 'Tenants' },
                    ]}
                  />
                  {mode === 'percentage' ? (
                    <NumberInput
                      label="Percentage"
                      min={1}
                      max={100}
                      value={percentage}
                      onChange={setPercentage}
                      w={120}
                    />
                  ) : (
                    <TagsInput label="Tenants" value={tenants} onChange={setTenants} w={320} />
                  )}
                  <Button disabled={!version} onClick={() => void start()}>
                    Start canary
                  </Button>
                </Group>
              </Stack>
            </Paper>
          )}
          <Title order={3} size="h4">
            History
          </Title>
          <ListTable testId="rollout-history" columns={['Version', 'Status', 'Targets', 'Started', 'Ended']}>
            {state.rollouts.map((r) => (
              <Table.Tr key={r.rolloutId}>
                <Table.Td>v{r.version}</Table.Td>
                <Table.Td>
                  <Badge color={ROLLOUT_COLOURS[r.status]}>{r.status}</Badge>
                </Table.Td>
                <Table.Td>{targets(r)}</Table.Td>
                <Table.Td>
                  {r.createdBy}, {new Date(r.createdAt).toLocaleString()}
                </Table.Td>
                <Table.Td>
                  {r.promotedAt && `promoted ${new Date(r.promotedAt).toLocaleString()}`}
                  {r.rolledBackAt && `rolled back ${new Date(r.rolledBackAt).toLocaleString()}: ${r.reason}`}
                </Table.Td>
              </Table.Tr>
            ))}
            {state.rollouts.length === 0 && (
              <Table.Tr>
                <Table.Td colSpan={5}>No canary yet.</Table.Td>
              </Table.Tr>
            )}
          </ListTable>
        </>
      )}
    </Stack>
  );
}
