import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';

/** `auth_audit`: security events (logins, failures, logouts, refresh-token reuse) per tenant. */
@Injectable()
export class AuthAuditRepository {
  async record(
    m: EntityManager,
    tenantId: string,
    event: string,
    subject: string | null,
    details: Record<string, unknown>,
  ): Promise<void> {
    await m.query(
      `INSERT INTO auth_audit (id, tenant_id, event, subject, details) VALUES ($1, $2, $3, $4, $5)`,
      [randomUUID(), tenantId, event, subject, JSON.stringify(details)],
    );
  }
}
