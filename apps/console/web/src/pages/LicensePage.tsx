import {
  Alert,
  Badge,
  Button,
  Code,
  Group,
  Paper,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useState } from 'react';
import { errorText, request } from '../api';
import type { RuntimeInfo } from '../App';

interface Validation {
  isValid: boolean;
  tier: string | null;
  allowedFeatures: string[] | null;
  expiresAt: string | null;
  error: string | null;
}

/** License: the runtime's license state (`/api/v1/info`) and an online check of a key (`POST /api/v1/validate`). */
export function LicensePage({ info }: { info: RuntimeInfo | null }) {
  const [key, setKey] = useState('');
  const [fingerprint, setFingerprint] = useState('console');
  const [action, setAction] = useState('cp.publish');
  const [result, setResult] = useState<Validation | null>(null);
  const [error, setError] = useState<string | null>(null);

  const check = async () => {
    try {
      setError(null);
      setResult(
        await request<Validation>('identity', '/api/v1/validate', {
          method: 'POST',
          body: { licenseKey: key.trim(), machineFingerprint: fingerprint, actionType: action },
          anonymous: true,
        }),
      );
    } catch (e) {
      setResult(null);
      setError(errorText(e));
    }
  };

  return (
    <Stack>
      <Title order={2}>License</Title>
      {info && (
        <Table data-testid="runtime-license" maw={720}>
          <Table.Tbody>
            <Table.Tr>
              <Table.Th>State</Table.Th>
              <Table.Td>
                <Badge color={info.isValid ? 'green.9' : 'red.9'}>
                  {info.isValid ? 'valid' : 'not valid'}
                </Badge>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Tier</Table.Th>
              <Table.Td>{info.tier ?? '—'}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>License id</Table.Th>
              <Table.Td>{info.licenseId ?? '—'}</Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Features</Table.Th>
              <Table.Td>
                <Group gap={4}>
                  {(info.allowedFeatures ?? []).map((f) => (
                    <Code key={f}>{f}</Code>
                  ))}
                  {!(info.allowedFeatures ?? []).length && 'none listed'}
                </Group>
              </Table.Td>
            </Table.Tr>
            <Table.Tr>
              <Table.Th>Version</Table.Th>
              <Table.Td>{info.version ?? '—'}</Table.Td>
            </Table.Tr>
          </Table.Tbody>
        </Table>
      )}
      <Paper withBorder p="sm" maw={720}>
        <Title order={3} size="h4" mb="xs">
          Check a license key
        </Title>
        <Group align="end">
          <TextInput
            label="License key"
            value={key}
            onChange={(e) => setKey(e.currentTarget.value)}
            w={300}
          />
          <TextInput
            label="Machine fingerprint"
            value={fingerprint}
            onChange={(e) => setFingerprint(e.currentTarget.value)}
          />
          <TextInput label="Action" value={action} onChange={(e) => setAction(e.currentTarget.value)} />
          <Button disabled={!key.trim()} onClick={() => void check()}>
            Check
          </Button>
        </Group>
        {error && (
          <Alert mt="sm" color="red" role="status">
            {error}
          </Alert>
        )}
        {result && (
          <Stack mt="sm" gap={4} data-testid="license-check">
            <Group gap="xs">
              <Badge color={result.isValid ? 'green.9' : 'red.9'}>
                {result.isValid ? 'allowed' : 'refused'}
              </Badge>
              <Text size="sm">
                tier {result.tier ?? '—'}
                {result.expiresAt ? `, expires ${new Date(result.expiresAt).toLocaleDateString()}` : ''}
                {result.error ? ` — ${result.error}` : ''}
              </Text>
            </Group>
            <Text size="sm">features: {(result.allowedFeatures ?? []).join(', ') || 'none'}</Text>
          </Stack>
        )}
      </Paper>
    </Stack>
  );
}
