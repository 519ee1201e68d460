import { Logger } from '@nestjs/common';

export interface RevocationEntry {
  jti: string;
  /** ISO timestamp: once the token has expired the entry is useless and is dropped. */
  expiresAt: string;
}

/** Where a service loads the current denylist from at startup (and on periodic resync). */
export interface RevocationSource {
  list(): Promise<RevocationEntry[]>;
}

/**
 * In-memory denylist of revoked token ids. Entries expire with the token they revoke (plus the clock
 * tolerance), so the list stays as small as the number of revoked, still-valid tokens.
 */
export class RevocationList {
  private readonly entries = new Map<string, number>();
  private readonly logger = new Logger('RevocationList');
  private timer: NodeJS.Timeout | undefined;
  loadedAt: Date | null = null;

  constructor(private readonly graceMs = 15_000) {}

  add(entry: RevocationEntry): void {
    const expires = Date.parse(entry.expiresAt);
    const until = Number.isFinite(expires) ? expires + this.graceMs : Date.now() + 24 * 3600_000;
    if (until <= Date.now()) return;
    const existing = this.entries.get(entry.jti) ?? 0;
    this.entries.set(entry.jti, Math.max(existing, until));
  }

  isRevoked(jti: string): boolean {
    const until = this.entries.get(jti);
    if (until === undefined) return false;
    if (until <= Date.now()) {
      this.entries.delete(jti);
      return false;
    }
    return true;
  }

  size(): number {
    return this.entries.size;
  }

  purge(): void {
    const now = Date.now();
    for (const [jti, until] of this.entries) if (until <= now) this.entries.delete(jti);
  }

  async load(source: RevocationSource): Promise<number> {
    const list = await source.list();
    for (const entry of list) this.add(entry);
    this.loadedAt = new Date();
    return list.length;
  }

  startPurging(intervalMs = 60_000): void {
    this.timer ??= setInterval(() => this.purge(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Tries once, logs and returns false on failure (the caller retries in the background). */
  async tryLoad(source: RevocationSource, label: string): Promise<boolean> {
    try {
      const count = await source.list().then((list) => {
        for (const entry of list) this.add(entry);
        return list.length;
      });
      this.loadedAt = new Date();
      this.logger.log({ msg: 'revocation list loaded', source: label, entries: count });
      return true;
    } catch (error) {
      this.logger.warn({ msg: 'revocation list not loaded yet', source: label, error: String(error) });
      return false;
    }
  }
}

/**
 * Identity's `GET /api/v1/auth/revocations` (hosted envelope) as a revocation source. The endpoint needs
 * a credential: a service key of identity's `IdentityAuth:ServiceApiKeys` (sent as `X-Api-Key`) lists
 * every tenant's revocations.
 */
export class HttpRevocationSource implements RevocationSource {
  constructor(
    readonly url: string,
    private readonly timeoutMs = 3_000,
    private readonly apiKey?: string,
  ) {}

  async list(): Promise<RevocationEntry[]> {
    const response = await fetch(this.url, {
      signal: AbortSignal.timeout(this.timeoutMs),
      headers: { accept: 'application/json', ...(this.apiKey ? { 'x-api-key': this.apiKey } : {}) },
    });
    if (!response.ok) throw new Error(`${this.url} answered ${response.status}`);
    const body = (await response.json()) as { result?: { items?: RevocationEntry[] } };
    return body.result?.items ?? [];
  }
}
