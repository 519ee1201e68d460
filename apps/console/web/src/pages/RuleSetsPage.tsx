import {
  Alert,
  Badge,
  Button,
  Grid,
  Group,
  Loader,
  NativeSelect,
  Paper,
  Stack,
  Table,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { cp, errorText } from '../api';
import { FlowGraph } from '../components/FlowGraph';
import { JsonEditor } from '../components/JsonEditor';
import { SideBySideDiff } from '../components/SideBySideDiff';
import { onHubEvent } from '../hub';
import { ListTable } from '../components/ListTable';

interface RuleSetSummary {
  workflowName: string;
  activeVersion: number | null;
  totalVersions: number;
  lastModified: string;
  modifiedBy: string;
}
interface VersionSummary {
  workflowName: string;
  version: number;
  status: string;
  shape: string;
  createdAt: string;
  createdBy: string;
  changeDescription: string | null;
  submittedBy: string | null;
  approvedBy: string | null;
  rejectedBy: string | null;
  rejectionReason: string | null;
}

const A = '/api/v1/rule-engine/rulesets';
const B = '/api/v1/control-plane';
const enc = encodeURIComponent;

export const STATUS_COLOURS: Record<string, string> = {
  active: 'green',
  approved: 'teal',
  pendingapproval: 'yellow',
  draft: 'gray',
  rejected: 'red',
  archived: 'dark',
};
export const statusColour = (status: string) =>
  STATUS_COLOURS[status.toLowerCase().replace(/_/g, '')] ?? 'gray';

const NEW_RULE_SET = {
  type: 'rules',
  rules: [{ id: 'adult', name: 'Adult', condition: 'age >= 18', output: { eligible: true } }],
};

export function RuleSetsPage() {
  const [list, setList] = useState<RuleSetSummary[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [newName, setNewName] = useState('');

  const reload = useCallback(() => {
    cp<{ rulesets: RuleSetSummary[] }>(`${B}/rulesets`)
      .then((r) => setList(r.rulesets))
      .catch((e) => setError(errorText(e)));
  }, []);
  useEffect(reload, [reload]);
  useEffect(() => onHubEvent((e) => e.kind === 'RuleSetChangeEvent' && reload()), [reload]);

  return (
    <Stack>
      <Title order={2}>Rule sets</Title>
      {error && <Alert color="red">{error}</Alert>}
      <Grid>
        <Grid.Col span={{ base: 12, md: 4 }}>
          <Paper withBorder p="sm">
            {!list ? (
              <Loader size="sm" aria-label="Loading rule sets" />
            ) : (
              <ListTable testId="ruleset-list" highlightOnHover columns={['Workflow', 'Active', 'Versions']}>
                {list.map((r) => (
                  <Table.Tr
                    key={r.workflowName}
                    bg={r.workflowName === selected ? 'var(--mantine-color-indigo-light)' : undefined}
                  >
                    <Table.Td>
                      <Button variant="subtle" size="compact-sm" onClick={() => setSelected(r.workflowName)}>
                        {r.workflowName}
                      </Button>
                    </Table.Td>
                    <Table.Td data-testid={`active-${r.workflowName}`}>{r.activeVersion ?? '—'}</Table.Td>
                    <Table.Td>{r.totalVersions}</Table.Td>
                  </Table.Tr>
                ))}
                {list.length === 0 && (
                  <Table.Tr>
                    <Table.Td colSpan={3}>No rule sets yet.</Table.Td>
                  </Table.Tr>
                )}
              </ListTable>
            )}
            <Group mt="sm" align="flex-end">
              <TextInput
                label="New rule set"
                placeholder="workflow name"
                value={newName}
                onChange={(e) => setNewName(e.currentTarget.value)}
              />
              <Button
                variant="light"
                disabled={!/^[A-Za-z0-9_.-]+$/.test(newName)}
                onClick={() => {
                  setSelected(newName);
                  setNewName('');
                }}
              >
                Open
              </Button>
            </Group>
          </Paper>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 8 }}>
          {selected ? (
            <RuleSetDetail key={selected} workflow={selected} onSaved={reload} />
          ) : (
            <Text c="gray.7">Choose a rule set.</Text>
          )}
        </Grid.Col>
      </Grid>
    </Stack>
  );
}

function RuleSetDetail({ workflow, onSaved }: { workflow: string; onSaved: () => void }) {
  const [versions, setVersions] = useState<VersionSummary[]>([]);
  const [version, setVersion] = useState<number | null>(null);
  const [document, setDocument] = useState<any>(null);
  const [text, setText] = useState(JSON.stringify(NEW_RULE_SET, null, 2));
  const [message, setMessage] = useState<{ colour: string; text: string } | null>(null);
  const [changeDescription, setChangeDescription] = useState('');

  const loadVersions = useCallback(async () => {
    try {
      const r = await cp<{ versions: VersionSummary[] }>(`${B}/rulesets/${enc(workflow)}/versions`, {
        query: { limit: 100 },
      });
      setVersions(r.versions);
      return r.versions;
    } catch (e) {
      if ((e as any)?.status !== 404) setMessage({ colour: 'red', text: errorText(e) });
      setVersions([]);
      return [];
    }
  }, [workflow]);

  const openVersion = useCallback(
    async (v: number) => {
      try {
        const r = await cp<{ ruleSet: unknown }>(`${A}/${enc(workflow)}/versions/${v}`);
        setVersion(v);
        setDocument(r.ruleSet);
        setText(JSON.stringify(r.ruleSet, null, 2));
      } catch (e) {
        setMessage({ colour: 'red', text: errorText(e) });
      }
    },
    [workflow],
  );

  useEffect(() => {
    void loadVersions().then((vs) => vs[0] && void openVersion(vs[0].version));
  }, [loadVersions, openVersion]);
  useEffect(
    () =>
      onHubEvent((e) => {
        if (e.kind === 'RuleSetChangeEvent' && e.payload.workflowName === workflow) void loadVersions();
      }),
    [workflow, loadVersions],
  );

  const parsed = (() => {
    try {
      return JSON.parse(text);
    } catch {
      return null;
    }
  })();

  const validate = async () => {
    try {
      const r = await cp<{ valid: boolean; shape: string; errors: { path: string; message: string }[] }>(
        `${A}/${enc(workflow)}/validate`,
        { method: 'POST', body: { ruleSet: parsed } },
      );
      setMessage(
        r.valid
          ? { colour: 'green', text: `Valid (${r.shape}).` }
          : { colour: 'red', text: `Invalid: ${r.errors.map((x) => `${x.path}: ${x.message}`).join('; ')}` },
      );
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  const save = async () => {
    try {
      const r = await cp<{ version: number; status: string }>(`${B}/rulesets/${enc(workflow)}`, {
        method: 'POST',
        body: { ruleSet: parsed, detail: changeDescription || undefined },
      });
      setMessage({ colour: 'green', text: `Saved version ${r.version} (${r.status}).` });
      setChangeDescription('');
      onSaved();
      await loadVersions();
      await openVersion(r.version);
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  const current = versions.find((v) => v.version === version);
  const submit = async () => {
    if (!current) return;
    try {
      await cp(`${B}/rulesets/${enc(workflow)}/${current.version}/submit`, {
        method: 'POST',
        body: { detail: changeDescription || `submitted v${current.version} for approval` },
      });
      setMessage({ colour: 'green', text: `Version ${current.version} submitted for approval.` });
      await loadVersions();
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  const activate = async () => {
    if (!current) return;
    try {
      const r = await cp<{ version: number; previousActiveVersion: number | null }>(
        `${B}/rulesets/${enc(workflow)}/${current.version}/activate`,
        {
          method: 'POST',
          body: { detail: changeDescription || `activated v${current.version} in the console` },
        },
      );
      setMessage({
        colour: 'green',
        text: `Version ${r.version} is active${r.previousActiveVersion ? ` (was v${r.previousActiveVersion})` : ''}.`,
      });
      onSaved();
      await loadVersions();
    } catch (e) {
      setMessage({ colour: 'red', text: errorText(e) });
    }
  };

  return (
    <Stack>
      <Group justify="space-between">
        <Title order={3}>{workflow}</Title>
        {current && (
          <Group gap="xs">
            <Text size="sm">version {current.version}</Text>
            <Badge color={statusColour(current.status)} data-testid="version-status">
              {current.status}
            </Badge>
            <Badge variant="outline">{current.shape}</Badge>
          </Group>
        )}
      </Group>
      {message && (
        <Alert
          color={message.colour}
          role="status"
          data-testid="ruleset-message"
          withCloseButton
          closeButtonLabel="Dismiss"
          onClose={() => setMessage(null)}
        >
          {message.text}
        </Alert>
      )}
      <Tabs defaultValue="document" keepMounted={false}>
        <Tabs.List>
          <Tabs.Tab value="document">Document</Tabs.Tab>
          <Tabs.Tab value="versions">Versions ({versions.length})</Tabs.Tab>
          <Tabs.Tab value="diff" disabled={versions.length < 2}>
            Diff
          </Tabs.Tab>
          <Tabs.Tab value="dry-run">Dry-run</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="document" pt="sm">
          <Stack>
            {document?.type === 'flow-graph' || (parsed && Array.isArray(parsed.nodes)) ? (
              <FlowGraph document={parsed ?? document} />
            ) : null}
            <JsonEditor
              label="Rule set document (JSON)"
              value={text}
              onChange={setText}
              testId="ruleset-editor"
            />
            <TextInput
              label="Change description"
              value={changeDescription}
              onChange={(e) => setChangeDescription(e.currentTarget.value)}
            />
            <Group>
              <Button variant="default" onClick={() => void validate()} disabled={!parsed}>
                Validate
              </Button>
              <Button onClick={() => void save()} disabled={!parsed}>
                Save new version
              </Button>
              {current && current.status.toLowerCase() === 'approved' && (
                <Button color="green" onClick={() => void activate()}>
                  Activate v{current.version}
                </Button>
              )}
              {current && ['draft'].includes(current.status.toLowerCase()) && (
                <Button color="yellow" onClick={() => void submit()}>
                  Submit for approval
                </Button>
              )}
            </Group>
          </Stack>
        </Tabs.Panel>
        <Tabs.Panel value="versions" pt="sm">
          <ListTable
            testId="version-list"
            columns={['Version', 'Status', 'Created', 'Submitted', 'Approved / rejected', 'Description']}
          >
            {versions.map((v) => (
              <Table.Tr key={v.version}>
                <Table.Td>
                  <Button size="compact-sm" variant="subtle" onClick={() => void openVersion(v.version)}>
                    v{v.version}
                  </Button>
                </Table.Td>
                <Table.Td>
                  <Badge color={statusColour(v.status)}>{v.status}</Badge>
                </Table.Td>
                <Table.Td>
                  {v.createdBy}, {new Date(v.createdAt).toLocaleString()}
                </Table.Td>
                <Table.Td>{v.submittedBy ?? '—'}</Table.Td>
                <Table.Td>
                  {v.approvedBy ?? (v.rejectedBy ? `${v.rejectedBy}: ${v.rejectionReason ?? ''}` : '—')}
                </Table.Td>
                <Table.Td>{v.changeDescription ?? ''}</Table.Td>
              </Table.Tr>
            ))}
          </ListTable>
        </Tabs.Panel>
        <Tabs.Panel value="diff" pt="sm">
          <DiffView workflow={workflow} versions={versions} />
        </Tabs.Panel>
        <Tabs.Panel value="dry-run" pt="sm">
          <DryRun workflow={workflow} document={parsed} />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}

function DiffView({ workflow, versions }: { workflow: string; versions: VersionSummary[] }) {
  const options = versions.map((v) => String(v.version));
  const [from, setFrom] = useState(options[1] ?? options[0]);
  const [to, setTo] = useState(options[0]);
  const [docs, setDocs] = useState<{ left: unknown; right: unknown; changes: any } | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!from || !to) return;
    Promise.all([
      cp(`${A}/${enc(workflow)}/versions/${from}`),
      cp(`${A}/${enc(workflow)}/versions/${to}`),
      cp(`${A}/${enc(workflow)}/versions/${from}/diff/${to}`),
    ])
      .then(([l, r, d]) => setDocs({ left: l.ruleSet, right: r.ruleSet, changes: d.changes }))
      .catch((e) => setError(errorText(e)));
  }, [workflow, from, to]);
  return (
    <Stack>
      <Group>
        <NativeSelect
          label="From version"
          data={options}
          value={from}
          onChange={(e) => setFrom(e.currentTarget.value)}
        />
        <NativeSelect
          label="To version"
          data={options}
          value={to}
          onChange={(e) => setTo(e.currentTarget.value)}
        />
      </Group>
      {error && <Alert color="red">{error}</Alert>}
      {docs && (
        <>
          <Group gap="xs" data-testid="diff-summary">
            <Badge color="green">added {docs.changes.added.length}</Badge>
            <Badge color="yellow">modified {docs.changes.modified.length}</Badge>
            <Badge color="red">removed {docs.changes.removed.length}</Badge>
            {[...docs.changes.added, ...docs.changes.modified, ...docs.changes.removed].map((c: any) => (
              <Text size="sm" key={c.id}>
                {c.id}
              </Text>
            ))}
          </Group>
          <SideBySideDiff leftTitle={`v${from}`} rightTitle={`v${to}`} left={docs.left} right={docs.right} />
        </>
      )}
    </Stack>
  );
}

function DryRun({ workflow, document }: { workflow: string; document: unknown }) {
  const [facts, setFacts] = useState('{\n  "age": 21\n}');
  const [result, setResult] = useState<any>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setError(null);
    try {
      setResult(
        await cp(`${B}/rulesets/${enc(workflow)}/dry-run`, {
          method: 'POST',
          body: { ruleSet: document, context: JSON.parse(facts) },
        }),
      );
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <Stack>
      <Text size="sm" c="gray.7">
        Runs the document in the editor against these facts; nothing is saved.
      </Text>
      <JsonEditor label="Facts (JSON)" value={facts} onChange={setFacts} minRows={4} testId="facts-editor" />
      <Group>
        <Button onClick={() => void run()} disabled={!document}>
          Dry-run
        </Button>
      </Group>
      {error && <Alert color="red">{error}</Alert>}
      {result && (
        <Stack data-testid="dry-run-result">
          <Text>
            {result.rulesMatched ? 'Matched' : 'Nothing matched'} in{' '}
            {Number(result.evaluationTimeMs).toFixed(3)} ms
          </Text>
          <Table>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Rule / node</Table.Th>
                <Table.Th>Matched</Table.Th>
                <Table.Th>Reason</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {(result.traces ?? []).map((t: any, i: number) => (
                <Table.Tr key={i}>
                  <Table.Td>{t.ruleName}</Table.Td>
                  <Table.Td>
                    <Badge color={t.matched ? 'green' : 'gray'}>{t.matched ? 'yes' : 'no'}</Badge>
                  </Table.Td>
                  <Table.Td>{t.failReason ?? ''}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Text fw={600}>Output facts</Text>
          <pre style={{ margin: 0 }}>{JSON.stringify(result.outputFacts, null, 2)}</pre>
          {result.errors?.length > 0 && <Alert color="red">{JSON.stringify(result.errors)}</Alert>}
        </Stack>
      )}
    </Stack>
  );
}
