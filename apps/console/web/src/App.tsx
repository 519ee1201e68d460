import { Alert, AppShell, Badge, Button, Group, NavLink, Text, Title, Tooltip } from '@mantine/core';
import { useEffect, useState } from 'react';
import { cp, currentSession, logout, onSessionChange, Session } from './api';
import { connectHub, disconnectHub, onHubEvent } from './hub';
import { LoginPage } from './pages/LoginPage';
import { RuleSetsPage } from './pages/RuleSetsPage';
import { ApprovalsPage } from './pages/ApprovalsPage';
import { TablesPage } from './pages/TablesPage';
import { RolloutPage } from './pages/RolloutPage';
import { AuditPage } from './pages/AuditPage';
import { EventWindowsPage } from './pages/EventWindowsPage';
import { ScenariosPage } from './pages/ScenariosPage';
import { LicensePage } from './pages/LicensePage';
import { ExperiencePage } from './pages/ExperiencePage';
import { pageAllowed } from './license-model';

export interface RuntimeInfo {
  version: string | null;
  tier: string | null;
  isValid: boolean;
  licenseId: string | null;
  activationProof: unknown;
  allowedFeatures: string[] | null;
}

/** `feature`: the license feature a page needs (`/api/v1/info` `allowedFeatures`); none: always shown. */
const PAGES = [
  { id: 'rulesets', label: 'Rule sets' },
  { id: 'approvals', label: 'Approvals' },
  { id: 'rollout', label: 'Rollout', feature: 'pdf.canary' },
  { id: 'audit', label: 'Audit' },
  { id: 'tables', label: 'Decision tables' },
  { id: 'event-windows', label: 'Event windows' },
  { id: 'scenarios', label: 'Scenarios' },
  { id: 'license', label: 'License' },
  { id: 'experience', label: 'Experience' },
] as const satisfies readonly { id: string; label: string; feature?: string }[];
type PageId = (typeof PAGES)[number]['id'];

function pageFromHash(): PageId {
  const id = location.hash.replace(/^#\/?/, '').split('/')[0];
  return (PAGES.find((p) => p.id === id)?.id ?? 'rulesets') as PageId;
}

export function App() {
  const [session, setSession] = useState<Session | null>(currentSession());
  const [page, setPage] = useState<PageId>(pageFromHash());
  const [info, setInfo] = useState<RuntimeInfo | null>(null);
  const [infoError, setInfoError] = useState<string | null>(null);
  const [hubState, setHubState] = useState('disconnected');
  const [lastEvent, setLastEvent] = useState<string | null>(null);

  useEffect(() => onSessionChange(setSession), []);
  useEffect(() => {
    const onHash = () => setPage(pageFromHash());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    cp<RuntimeInfo>('/api/v1/info', { anonymous: true })
      .then(setInfo)
      .catch((e) => setInfoError(String(e?.message ?? e)));
  }, []);
  useEffect(() => {
    if (!session) {
      void disconnectHub();
      return;
    }
    void connectHub(setHubState);
    return onHubEvent(({ kind, payload }) =>
      setLastEvent(
        kind === 'RuleSetChangeEvent'
          ? `${payload.actor} ${payload.change} ${payload.workflowName} v${payload.version}`
          : `canary ${payload.workflowName} ${payload.status}`,
      ),
    );
  }, [session?.userName, session?.tenantId]);

  const license = info ? (
    <Tooltip label={`features: ${(info.allowedFeatures ?? []).join(', ') || 'none listed'}`}>
      <Badge color={info.isValid ? 'green.9' : 'red.9'} data-testid="license-state">
        {info.tier ?? 'no tier'} · {info.isValid ? 'license valid' : 'license invalid'}
      </Badge>
    </Tooltip>
  ) : null;

  const visible = PAGES.filter((p) => pageAllowed('feature' in p ? p.feature : undefined, info));
  const allowed = visible.some((p) => p.id === page);

  if (!session) {
    return (
      <main>
        <LoginPage info={info} infoError={infoError} license={license} />
      </main>
    );
  }

  return (
    <AppShell header={{ height: 56 }} navbar={{ width: 220, breakpoint: 'sm' }} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between">
          <Group>
            <Title order={1} size="h3">
              Arbiter console
            </Title>
            {license}
            {info?.version && (
              <Text size="sm" c="gray.7">
                v{info.version}
              </Text>
            )}
          </Group>
          <Group>
            <Badge
              variant="dot"
              color={hubState === 'connected' ? 'green' : hubState === 'reconnecting' ? 'yellow' : 'gray'}
              data-testid="hub-state"
            >
              live: {hubState}
            </Badge>
            <Text size="sm" data-testid="current-user">
              {session.userName} ({session.tenantId})
            </Text>
            <Button size="xs" variant="default" onClick={() => void logout()}>
              Log out
            </Button>
          </Group>
        </Group>
      </AppShell.Header>
      <AppShell.Navbar p="xs" aria-label="Pages">
        {visible.map((p) => (
          <NavLink
            key={p.id}
            href={`#/${p.id}`}
            label={p.label}
            active={page === p.id}
            aria-current={page === p.id ? 'page' : undefined}
          />
        ))}
        {lastEvent && (
          <Alert mt="md" color="blue" title="Last change" data-testid="last-event">
            {lastEvent}
          </Alert>
        )}
      </AppShell.Navbar>
      <AppShell.Main>
        {info && !info.isValid && (
          <Alert color="red" mb="md" title="License">
            The license is not valid (tier {info.tier ?? 'none'}); the services decide what it allows.
          </Alert>
        )}
        {!allowed && info && (
          <Alert color="yellow" title="Not in the license" data-testid="page-not-licensed">
            This page needs a license feature the control plane's license does not list (
            {(info.allowedFeatures ?? []).join(', ') || 'none'}).
          </Alert>
        )}
        {allowed && page === 'rulesets' && <RuleSetsPage />}
        {allowed && page === 'approvals' && <ApprovalsPage />}
        {allowed && page === 'rollout' && <RolloutPage />}
        {allowed && page === 'audit' && <AuditPage />}
        {allowed && page === 'tables' && <TablesPage />}
        {allowed && page === 'event-windows' && <EventWindowsPage />}
        {allowed && page === 'scenarios' && <ScenariosPage />}
        {allowed && page === 'license' && <LicensePage info={info} />}
        {allowed && page === 'experience' && <ExperiencePage />}
      </AppShell.Main>
    </AppShell>
  );
}
