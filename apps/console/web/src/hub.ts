import { HubConnection, HubConnectionBuilder, HttpTransportType, LogLevel } from '@microsoft/signalr';
import { consoleConfig, currentSession } from './api';

export interface RuleSetChangeEvent {
  workflowName: string;
  tenantId: string;
  version: number;
  change: string;
  revision: number;
  actor: string;
  occurredAt: string;
}

export type HubListener = (event: {
  kind: 'RuleSetChangeEvent' | 'CanaryStateChanged';
  payload: any;
}) => void;

let connection: HubConnection | null = null;
const listeners = new Set<HubListener>();
let stateListener: ((state: string) => void) | null = null;

/** One connection to the control plane's SignalR hub for the signed-in operator's tenant. */
export async function connectHub(onState?: (state: string) => void): Promise<void> {
  stateListener = onState ?? null;
  if (connection) return;
  const session = currentSession();
  if (!session) return;
  const cfg = consoleConfig();
  const headers: Record<string, string> = { 'x-tenant-id': session.tenantId };
  connection = new HubConnectionBuilder()
    .withUrl(`${cfg.prefixes.controlPlane}/hubs/rule-set-change`, {
      transport: HttpTransportType.WebSockets,
      headers,
      accessTokenFactory: cfg.authenticated.controlPlane
        ? () => currentSession()?.accessToken ?? ''
        : undefined,
    })
    .withAutomaticReconnect()
    .configureLogging(LogLevel.Warning)
    .build();
  connection.on('RuleSetChangeEvent', (payload) =>
    listeners.forEach((l) => l({ kind: 'RuleSetChangeEvent', payload })),
  );
  connection.on('CanaryStateChanged', (payload) =>
    listeners.forEach((l) => l({ kind: 'CanaryStateChanged', payload })),
  );
  connection.onreconnecting(() => stateListener?.('reconnecting'));
  connection.onreconnected(() => stateListener?.('connected'));
  connection.onclose(() => stateListener?.('disconnected'));
  try {
    await connection.start();
    stateListener?.('connected');
  } catch {
    connection = null;
    stateListener?.('disconnected');
  }
}

export async function disconnectHub(): Promise<void> {
  const c = connection;
  connection = null;
  await c?.stop();
}

export function onHubEvent(listener: HubListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
