import { AUTH_OPTIONS, AuthOptions } from '@arbiter/auth';
import { ControlPlaneHubPaths } from '@arbiter/contracts';
import {
  Inject,
  Injectable,
  Logger,
  BeforeApplicationShutdown,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { HubSettings } from './hub.settings';

/** Both documented spellings; each path serves RuleSetChangeEvent and CanaryStateChanged. */
export const HUB_PATHS: readonly string[] = ControlPlaneHubPaths;

const RS = '\x1e';
const PING_INTERVAL_MS = 15_000;
const TOKEN_TTL_MS = 60_000;

interface Pending {
  tenantId: string;
  hub: string;
  expires: number;
  connectionId: string;
}

interface Client {
  ws: WebSocket;
  tenantId: string;
  hub: string;
  connectionId: string;
  handshaken: boolean;
}

/**
 * A push hub speaking the SignalR JSON hub protocol (v1) over WebSockets, so the standard
 * `@microsoft/signalr` client connects: `POST /hubs/<name>/negotiate?negotiateVersion=1` (an ordinary
 * Nest route, behind authentication and the Viewer policy; it binds the connection to the caller's
 * tenant) → WebSocket upgrade on `/hubs/<name>?id=<connectionToken>` → handshake
 * `{"protocol":"json","version":1}` → `{}` → invocations `{"type":1,"target":…,"arguments":[…]}`,
 * pings `{"type":6}` every 15 s, close `{"type":7}`. A client sees only its tenant's events.
 * Without negotiation (`skipNegotiation`), the upgrade is accepted only when authorization is
 * disabled, the tenant then coming from `?tenant=` or `x-tenant-id`.
 */
@Injectable()
export class SignalRHub implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('SignalRHub');
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly pending = new Map<string, Pending>();
  private readonly clients = new Set<Client>();
  private pingTimer: NodeJS.Timeout | undefined;
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    this.upgrade(req, socket, head);
  private server: import('node:http').Server | undefined;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(HubSettings) private readonly settings: HubSettings,
    @Inject(AUTH_OPTIONS) private readonly auth: AuthOptions,
  ) {}

  onApplicationBootstrap() {
    this.server = this.adapterHost.httpAdapter.getHttpServer();
    this.server?.on('upgrade', this.onUpgrade);
    this.pingTimer = setInterval(() => this.sendAll(`{"type":6}${RS}`), PING_INTERVAL_MS);
    this.pingTimer.unref();
  }

  beforeApplicationShutdown() {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.server?.off('upgrade', this.onUpgrade);
    for (const client of this.clients) {
      try {
        client.ws.send(`{"type":7,"allowReconnect":true}${RS}`);
      } catch {
        /* closing anyway */
      }
      client.ws.terminate();
    }
    this.clients.clear();
    this.wss.close();
  }

  get connectionCount() {
    return [...this.clients].filter((c) => c.handshaken).length;
  }

  /** The negotiate answer (negotiateVersion 1): WebSockets, text transfer format. */
  negotiate(hub: string, tenantId: string) {
    const now = Date.now();
    for (const [token, p] of this.pending) if (p.expires < now) this.pending.delete(token);
    const connectionToken = randomBytes(24).toString('base64url');
    const connectionId = randomUUID();
    this.pending.set(connectionToken, { tenantId, hub, expires: now + TOKEN_TTL_MS, connectionId });
    return {
      connectionId,
      connectionToken,
      negotiateVersion: 1,
      availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }],
    };
  }

  /** Sends a hub invocation to every connected client of the tenant (gated by NotifyOnStateChange). */
  broadcast(target: 'RuleSetChangeEvent' | 'CanaryStateChanged', payload: unknown, tenantId: string): number {
    if (!this.settings.notifyOnStateChange) return 0;
    const frame = JSON.stringify({ type: 1, target, arguments: [payload] }) + RS;
    let sent = 0;
    for (const client of this.clients) {
      if (!client.handshaken || client.tenantId !== tenantId || client.ws.readyState !== WebSocket.OPEN)
        continue;
      client.ws.send(frame);
      sent++;
    }
    return sent;
  }

  private sendAll(frame: string) {
    for (const client of this.clients)
      if (client.handshaken && client.ws.readyState === WebSocket.OPEN) client.ws.send(frame);
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    const url = new URL(req.url ?? '/', 'http://hub');
    const hub = HUB_PATHS.find((p) => url.pathname === p);
    if (!hub) return; // not ours: another upgrade listener may take it, else the socket times out
    const reject = (status: number, message: string) => {
      socket.write(`HTTP/1.1 ${status} ${message}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.destroy();
    };
    let tenantId: string;
    let connectionId: string;
    const id = url.searchParams.get('id');
    if (id) {
      const pending = this.pending.get(id);
      this.pending.delete(id);
      if (!pending || pending.expires < Date.now() || pending.hub !== hub) return reject(404, 'Not Found');
      tenantId = pending.tenantId;
      connectionId = pending.connectionId;
    } else {
      if (this.auth.enabled) return reject(401, 'Unauthorized');
      const header = req.headers['x-tenant-id'];
      tenantId = url.searchParams.get('tenant') || (Array.isArray(header) ? header[0] : header) || 'default';
      connectionId = randomUUID();
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, hub, tenantId, connectionId));
  }

  private accept(ws: WebSocket, hub: string, tenantId: string, connectionId: string) {
    const client: Client = { ws, hub, tenantId, connectionId, handshaken: false };
    this.clients.add(client);
    let buffer = '';
    ws.on('message', (data) => {
      buffer += data.toString();
      let index: number;
      while ((index = buffer.indexOf(RS)) >= 0) {
        const frame = buffer.slice(0, index);
        buffer = buffer.slice(index + 1);
        this.onFrame(client, frame);
      }
    });
    ws.on('close', () => this.clients.delete(client));
    ws.on('error', () => this.clients.delete(client));
  }

  private onFrame(client: Client, frame: string) {
    let message: any;
    try {
      message = JSON.parse(frame);
    } catch {
      client.ws.send(JSON.stringify({ type: 7, error: 'Invalid JSON frame' }) + RS);
      client.ws.close();
      return;
    }
    if (!client.handshaken) {
      if (message?.protocol === 'json' && message?.version === 1) {
        client.handshaken = true;
        client.ws.send(`{}${RS}`);
      } else {
        client.ws.send(
          JSON.stringify({ error: `Unsupported protocol '${message?.protocol}' (json, version 1)` }) + RS,
        );
        client.ws.close();
      }
      return;
    }
    switch (message?.type) {
      case 6: // ping
        return;
      case 7: // close
        client.ws.close();
        return;
      case 1: // invocation: the hub exposes no server methods
      case 4:
        if (message.invocationId)
          client.ws.send(
            JSON.stringify({
              type: 3,
              invocationId: message.invocationId,
              error: `Unknown hub method '${message.target}'`,
            }) + RS,
          );
        return;
      default:
        return;
    }
  }
}
