import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, TextInput, Title } from '@mantine/core';
import { FormEvent, ReactNode, useState } from 'react';
import { errorText, login } from '../api';
import type { RuntimeInfo } from '../App';

export function LoginPage(props: { info: RuntimeInfo | null; infoError: string | null; license: ReactNode }) {
  const [userName, setUserName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await login(userName, password);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Center mih="100vh">
      <Paper withBorder shadow="sm" p="xl" w={380}>
        <form onSubmit={(e) => void submit(e)} aria-label="Sign in">
          <Stack>
            <Title order={1} size="h2">
              Arbiter console
            </Title>
            {props.license}
            {props.infoError && <Text c="red">License state unavailable: {props.infoError}</Text>}
            <TextInput
              label="User name"
              name="userName"
              autoComplete="username"
              value={userName}
              onChange={(e) => setUserName(e.currentTarget.value)}
              required
            />
            <PasswordInput
              label="Password"
              name="password"
              autoComplete="current-password"
              value={password}
              onChange={(e) => setPassword(e.currentTarget.value)}
              required
            />
            {error && (
              <Alert color="red" role="alert" title="Sign-in failed">
                {error}
              </Alert>
            )}
            <Button type="submit" loading={busy}>
              Sign in
            </Button>
          </Stack>
        </form>
      </Paper>
    </Center>
  );
}
