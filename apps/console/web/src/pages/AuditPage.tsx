import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  NativeSelect,
  Pagination,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { cp, errorText } from '../api';
import { useHashWorkflow, useRuleSetNames } from '../hooks/useRuleSetNames';
import { onHubEvent } from '../hub';
import { entryVerdict, severityColour, Verification } from '../audit-model';
import { ListTable } from '../components/ListTable';
import { RuleSetSelect } from '../components/RuleSetSelect';

interface AuditEntry {
  seq: number;
  timestamp: string;
  actor: string;
  action: string;
  version: number | null;
  detail: string | null;
  status: string;
  hash: string;
  prevHash: string | null;
  signature: string | null;
  keyId: string | null;
}
interface Difference {
  field: string;
  activeValue: unknown;
  candidateValue: unknown;
  severity: string;
}
interface ExecutionEntry {
  executionId: string;
  version: number | null;
  correlationId: string | null;
  executedAt: string;
  executionTimeMs: number;
  rulesMatched: unknown;
  status: string;
  errorCodes: string[];
  arm: string;
  mode: string;
  shadowDiff?: {
    candidateVersion: number;
    severity: string;
    differences: Difference[];
    candidateErrors?: string[];
  };
}

const A = '/api/v1/rule-engine/rulesets';
const enc = encodeURIComponent;
const PAGE_SIZE = 20;
const show = (v: unknown) => (v === undefined ? '(missing)' : JSON.stringify(v));

/** Audit: the signed rule-set audit with chain verification, and the execution audit with shadow diffs. */
export function AuditPage() {
  const { names, error } = useRuleSetNames();
  const [workflow, setWorkflow] = useHashWorkflow('audit');
  return (
    <Stack>
      <Title order={2}>Audit</Title>
      {error && <Alert color="red">{error}</Alert>}
      <RuleSetSelect names={names} value={workflow} onChange={setWorkflow} maw={360} />
      {workflow && (
        <Tabs defaultValue="changes" keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="changes">Changes (signed)</Tabs.Tab>
            <Tabs.Tab value="executions">Executions and shadow</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="changes" pt="sm">
            <ChangeAudit workflow={workflow} />
          </Tabs.Panel>
          <Tabs.Panel value="executions" pt="sm">
            <ExecutionAudit workflow={workflow} />
          </Tabs.Panel>
        </Tabs>
      )}
    </Stack>
  );
}

function ChangeAudit({ workflow }: { workflow: string }) {
  const [page, setPage] = useState(1);
  const [data, setData] = useState<{ entries: AuditEntry[]; total: number } | null>(null);
  const [verification, setVerification] = useState<Verification | null>(null);
  const [actor, setActor] = useState('');
  const [action, setAction] = useState('');
  const [error, setError] = useState<string | null>(null);

  const reload = useCallback(() => {
    cp<{ entries: AuditEntry[]; total: number }>(`${A}/${enc(workflow)}/audit`, {
      query: { page, pageSize: PAGE_SIZE },
    })
      .then(setData)
      .catch((e) => setError(errorText(e)));
    cp<Verification>(`${A}/${enc(workflow)}/audit/verify`)
      .then(setVerification)
      .catch((e) => setError(errorText(e)));
  }, [workflow, page]);
  useEffect(reload, [reload]);
  useEffect(() => onHubEvent((e) => e.payload?.workflowName === workflow && reload()), [reload, workflow]);

  const entries = (data?.entries ?? []).filter(
    (e) =>
      (!action || e.action === action) &&
      (!actor || e.actor.toLowerCase().includes(actor.trim().toLowerCase())),
  );
  const actions = [...new Set((data?.entries ?? []).map((e) => e.action))].sort();

  return (
    <Stack>
      {error && <Alert color="red">{error}</Alert>}
      {verification && (
        <Alert
          color={verification.valid ? 'green' : 'red'}
          title={verification.valid ? 'Chain verified' : 'Chain broken'}
          data-testid="audit-verification"
        >
          {verification.valid
            ? `${verification.entriesChecked} entries of tenant ${verification.tenantId} checked: every hash links to the one before and every signature matches key ${verification.keyId}.`
            : `${verification.reason ?? 'verification failed'} at entry ${verification.firstBadEntry?.seq ?? '?'}.`}
        </Alert>
      )}
      <Group align="end">
        <NativeSelect
          label="Action"
          value={action}
          onChange={(e) => setAction(e.currentTarget.value)}
          data={[{ value: '', label: 'all' }, ...actions]}
        />
        <TextInput label="Actor" value={actor} onChange={(e) => setActor(e.currentTarget.value)} />
        <Text size="xs" c="gray.7">
          Filters apply to the page shown; the service pages by {PAGE_SIZE}.
        </Text>
      </Group>
      <ListTable
        testId="change-audit"
        columns={['Seq', 'When', 'Actor', 'Action', 'Version', 'Detail', 'Signature and chain']}
      >
        {entries.map((e) => {
          const verdict = entryVerdict(e, verification);
          return (
            <Table.Tr key={e.seq} data-testid={`audit-entry-${e.seq}`}>
              <Table.Td>{e.seq}</Table.Td>
              <Table.Td>{new Date(e.timestamp).toLocaleString()}</Table.Td>
              <Table.Td>{e.actor}</Table.Td>
              <Table.Td>{e.action}</Table.Td>
              <Table.Td>{e.version ?? ''}</Table.Td>
              <Table.Td>{e.detail ?? ''}</Table.Td>
              <Table.Td style={{ whiteSpace: 'nowrap' }}>
                <Tooltip label={`hash ${e.hash.slice(0, 16)}… · key ${e.keyId ?? 'none'}`}>
                  <Badge color={verdict.colour}>{verdict.label}</Badge>
                </Tooltip>
              </Table.Td>
            </Table.Tr>
          );
        })}
      </ListTable>
      {data && data.total > PAGE_SIZE && (
        <Pagination
          total={Math.ceil(data.total / PAGE_SIZE)}
          value={page}
          onChange={setPage}
          getControlProps={(control) => ({ 'aria-label': `${control} page` })}
          getItemProps={(p) => ({ 'aria-label': `page ${p}` })}
        />
      )}
    </Stack>
  );
}

function ExecutionAudit({ workflow }: { workflow: string }) {
  const [pages, setPages] = useState<ExecutionEntry[][]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [arm, setArm] = useState('');
  const [severity, setSeverity] = useState('');
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(
    async (before?: string) => {
      try {
        const r = await cp<{ items: ExecutionEntry[]; nextBefore: string | null }>(
          `/api/v1/audit/workflow/${enc(workflow)}`,
          { query: { pageSize: PAGE_SIZE, before } },
        );
        setPages((p) => (before ? [...p, r.items] : [r.items]));
        setNext(r.nextBefore);
      } catch (e) {
        setError(errorText(e));
      }
    },
    [workflow],
  );
  useEffect(() => void load(), [load]);

  const items = pages
    .flat()
    .filter(
      (e) =>
        (!arm || e.arm === arm) &&
        (!severity || (severity === 'any' ? !!e.shadowDiff : e.shadowDiff?.severity === severity)),
    );

  return (
    <Stack>
      {error && <Alert color="red">{error}</Alert>}
      <Group align="end">
        <NativeSelect
          label="Arm"
          value={arm}
          onChange={(e) => setArm(e.currentTarget.value)}
          data={['', 'active', 'canary', 'traditional'].map((v) => ({ value: v, label: v || 'all' }))}
        />
        <NativeSelect
          label="Shadow difference"
          value={severity}
          onChange={(e) => setSeverity(e.currentTarget.value)}
          data={[
            { value: '', label: 'all executions' },
            { value: 'any', label: 'shadowed' },
            { value: 'none', label: 'none' },
            { value: 'medium', label: 'medium' },
            { value: 'high', label: 'high' },
          ]}
        />
        <Button variant="default" onClick={() => void load()}>
          Refresh
        </Button>
      </Group>
      <ListTable testId="execution-audit" columns={['When', 'Version', 'Arm', 'Status', 'Time', 'Shadow']}>
        {items.map((e) => (
          <Table.Tr key={e.executionId} data-testid="execution-entry">
            <Table.Td>{new Date(e.executedAt).toLocaleString()}</Table.Td>
            <Table.Td>{e.version ?? '—'}</Table.Td>
            <Table.Td>{e.arm}</Table.Td>
            <Table.Td>
              <Badge color={e.status === 'success' ? 'green.9' : 'red.9'}>{e.status}</Badge>
              {e.errorCodes.length > 0 && <Text size="xs">{e.errorCodes.join(', ')}</Text>}
            </Table.Td>
            <Table.Td>{e.executionTimeMs.toFixed(2)} ms</Table.Td>
            <Table.Td>
              {e.shadowDiff && (
                <Stack gap={2}>
                  <Group gap="xs">
                    <Badge color={severityColour(e.shadowDiff.severity)} data-testid="shadow-severity">
                      v{e.shadowDiff.candidateVersion}: {e.shadowDiff.severity}
                    </Badge>
                    {e.shadowDiff.candidateErrors?.map((c) => (
                      <Code key={c}>{c}</Code>
                    ))}
                  </Group>
                  {e.shadowDiff.differences.map((d) => (
                    <Text key={d.field} size="xs">
                      <Badge size="xs" color={severityColour(d.severity)}>
                        {d.severity}
                      </Badge>{' '}
                      <Code>{d.field}</Code> {show(d.activeValue)} → {show(d.candidateValue)}
                    </Text>
                  ))}
                </Stack>
              )}
            </Table.Td>
          </Table.Tr>
        ))}
        {items.length === 0 && (
          <Table.Tr>
            <Table.Td colSpan={6}>
              No executions recorded{arm || severity ? ' match the filters' : ''}.
            </Table.Td>
          </Table.Tr>
        )}
      </ListTable>
      {next && (
        <Button variant="default" onClick={() => void load(next)}>
          Older executions
        </Button>
      )}
    </Stack>
  );
}
