import { RevocationEntry, RevocationSource } from '@arbiter/auth';
import { UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { RevokedTokenRepository } from './persistence/revoked-token.repository';

/** The permission of the other services' keys: every tenant's revoked token ids. */
export const REVOCATIONS_READ_ALL = 'Revocations.ReadAll';

/** Revoked token ids from identity's own table (identity's denylist bootstrap). */
@Injectable()
export class RevocationStore implements RevocationSource {
  constructor(
    @Inject(UnitOfWork) private readonly uow: UnitOfWork,
    @Inject(RevokedTokenRepository) private readonly revoked: RevokedTokenRepository,
  ) {}

  list(): Promise<RevocationEntry[]> {
    return this.uow.run((m) => this.revoked.listUnexpired(m), { tenantId: 'default' });
  }

  /** One tenant's revoked, unexpired token ids. */
  listForTenant(tenantId: string): Promise<RevocationEntry[]> {
    return this.uow.run((m) => this.revoked.listUnexpired(m, tenantId), { tenantId });
  }
}
