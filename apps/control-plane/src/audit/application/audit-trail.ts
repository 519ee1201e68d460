import { ChainVerification, verifyChain } from '@arbiter/audit-chain';
import { RequestContext, UnitOfWork } from '@arbiter/platform';
import { Inject, Injectable } from '@nestjs/common';
import { AuditChain, AuditLog } from '../persistence/audit-log';
import { AuditSigner } from './audit-signer';

export type { AuditChain };

export type AuditVerification = ChainVerification & { workflowName: string | null; keyId: string };

/**
 * Reading the caller's tenant's signed audit: the whole chain (for offline verification), its
 * verification against this node's signing key, and the public key to verify it with.
 */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly uow: UnitOfWork,
    @Inject(AuditLog) private readonly log: AuditLog,
    @Inject(AuditSigner) private readonly signer: AuditSigner,
  ) {}

  /** Verifies a chain read by the caller (a workflow's entries are part of its tenant's chain). */
  verify(tenantId: string, chain: AuditChain, workflowName: string | null = null): AuditVerification {
    const result = verifyChain(
      tenantId,
      chain.entries,
      { [this.signer.keyId]: this.signer.publicKey },
      chain.head,
    );
    return { ...result, workflowName, keyId: this.signer.keyId };
  }

  /** Verifies the whole chain of the caller's tenant. */
  async verifyTenant(): Promise<AuditVerification> {
    const tenantId = RequestContext.tenantId();
    return this.verify(tenantId, await this.uow.run((m) => this.log.chain(m, tenantId)));
  }

  async chain() {
    const tenantId = RequestContext.tenantId();
    const chain = await this.uow.run((m) => this.log.chain(m, tenantId));
    return { tenantId, keyId: this.signer.keyId, ...chain };
  }

  publicKey() {
    return {
      keyId: this.signer.keyId,
      algorithm: 'RS256' as const,
      publicKeyPem: this.signer.publicKeyPem(),
    };
  }
}
