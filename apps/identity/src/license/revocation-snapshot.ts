import {
  encodeDocument,
  RevocationSnapshot,
  RevocationSnapshotPayload,
  SNAPSHOT_TYPE,
} from '@arbiter/licensing';
import { UnitOfWork } from '@arbiter/platform';
import { Injectable } from '@nestjs/common';
import { LicenseSigner } from './license-signer';
import { RevocationRepository } from './persistence/license-store.repository';

/** The cached, signed revocation snapshot `GET /api/v1/revocation/list` answers. */
export interface SnapshotView {
  sequence: number;
  snapshot: RevocationSnapshot;
  signedSnapshot: string;
}

/**
 * The revocation snapshot cache: every revoked license with its grace deadline, signed, numbered by the
 * highest revocation `sequence` (so it only grows, and every replica numbers the same list the same way).
 * Refreshed at startup, by the refresh job, and at once on the replica that revokes.
 */
@Injectable()
export class RevocationSnapshotCache {
  private cached: SnapshotView | undefined;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly revocations: RevocationRepository,
    private readonly signer: LicenseSigner,
  ) {}

  async refresh(): Promise<SnapshotView> {
    const built = await this.uow.run(async (m) => {
      const rows = await this.revocations.all(m);
      const sequence = rows.length ? Number(rows[rows.length - 1].sequence) : 0;
      if (this.cached && this.cached.sequence === sequence && this.cached.snapshot.kid === this.signer.kid) {
        return this.cached;
      }
      const clock = await this.signer.clock(m);
      const payload: RevocationSnapshotPayload = {
        typ: SNAPSHOT_TYPE,
        sequence,
        issuedAt: clock.serverTime,
        ...clock,
        revoked: rows.map((r) => ({
          licenseId: r.license_id,
          revokedAt: new Date(r.revoked_at).toISOString(),
          reason: r.reason,
          graceDeadline: new Date(r.grace_deadline).toISOString(),
        })),
      };
      const snapshot = this.signer.sign(payload);
      return { sequence, snapshot, signedSnapshot: encodeDocument(snapshot) };
    });
    if (!this.cached || built.sequence >= this.cached.sequence) this.cached = built;
    return this.cached;
  }

  async current(): Promise<SnapshotView> {
    return this.cached ?? this.refresh();
  }
}
