import { Alert, Button, Group, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useCallback, useEffect, useState } from 'react';
import { cp, currentSession, errorText } from '../api';
import { onHubEvent } from '../hub';
import { ListTable } from '../components/ListTable';

interface Pending {
  workflowName: string;
  version: number;
  status: string;
  submittedBy: string;
  submittedAt: string;
  createdBy: string;
  createdAt: string;
  changeDescription: string | null;
}

const B = '/api/v1/control-plane';

/** Maker-checker: versions waiting for a second operator. The server decides who may approve. */
export function ApprovalsPage() {
  const [items, setItems] = useState<Pending[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [messages, setMessages] = useState<Record<string, { colour: string; text: string }>>({});
  const [reasons, setReasons] = useState<Record<string, string>>({});

  const reload = useCallback(() => {
    cp<{ items: Pending[] }>(`${B}/rulesets/pending-approvals`)
      .then((r) => setItems(r.items))
      .catch((e) => setError(errorText(e)));
  }, []);
  useEffect(reload, [reload]);
  useEffect(() => onHubEvent((e) => e.kind === 'RuleSetChangeEvent' && reload()), [reload]);

  const act = async (item: Pending, action: 'approve' | 'reject') => {
    const key = `${item.workflowName}@${item.version}`;
    const reason = reasons[key]?.trim() ?? '';
    try {
      await cp(`${B}/approvals/${encodeURIComponent(item.workflowName)}/${item.version}/${action}`, {
        method: 'POST',
        body: action === 'approve' ? { detail: reason || 'approved in the console' } : { reason },
      });
      setMessages((m) => ({
        ...m,
        [key]: { colour: 'green', text: `${action === 'approve' ? 'Approved' : 'Rejected'}.` },
      }));
      reload();
    } catch (e) {
      setMessages((m) => ({ ...m, [key]: { colour: 'red', text: errorText(e) } }));
    }
  };

  return (
    <Stack>
      <Title order={2}>Pending approvals</Title>
      <Text size="sm" c="gray.7">
        Signed in as {currentSession()?.userName}. A version cannot be approved by the operator who submitted
        it.
      </Text>
      {error && <Alert color="red">{error}</Alert>}
      <ListTable
        testId="pending-approvals"
        columns={['Rule set', 'Version', 'Submitted', 'Created', 'Description', 'Decision']}
      >
        {(items ?? []).map((item) => {
          const key = `${item.workflowName}@${item.version}`;
          return (
            <Table.Tr key={key} data-testid={`pending-${key}`}>
              <Table.Td>{item.workflowName}</Table.Td>
              <Table.Td>v{item.version}</Table.Td>
              <Table.Td>
                {item.submittedBy}, {new Date(item.submittedAt).toLocaleString()}
              </Table.Td>
              <Table.Td>
                {item.createdBy}, {new Date(item.createdAt).toLocaleString()}
              </Table.Td>
              <Table.Td>{item.changeDescription ?? ''}</Table.Td>
              <Table.Td>
                <Stack gap={4}>
                  <Group gap="xs" wrap="nowrap">
                    <TextInput
                      size="xs"
                      aria-label={`Reason for ${key}`}
                      placeholder="reason"
                      value={reasons[key] ?? ''}
                      onChange={(e) => {
                        const value = e.currentTarget.value;
                        setReasons((r) => ({ ...r, [key]: value }));
                      }}
                    />
                    <Button size="xs" color="green" onClick={() => void act(item, 'approve')}>
                      Approve
                    </Button>
                    <Button size="xs" color="red" variant="light" onClick={() => void act(item, 'reject')}>
                      Reject
                    </Button>
                  </Group>
                  {messages[key] && (
                    <Text size="sm" c={messages[key].colour === 'red' ? 'red.8' : 'green.9'} role="status">
                      {messages[key].text}
                    </Text>
                  )}
                </Stack>
              </Table.Td>
            </Table.Tr>
          );
        })}
        {items && items.length === 0 && (
          <Table.Tr>
            <Table.Td colSpan={6}>Nothing is waiting for approval.</Table.Td>
          </Table.Tr>
        )}
      </ListTable>
    </Stack>
  );
}
