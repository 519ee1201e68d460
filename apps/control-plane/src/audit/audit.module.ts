import { Module } from '@nestjs/common';
import { AuditSigner } from './application/audit-signer';
import { AuditTrail } from './application/audit-trail';
import { AuditController } from './http/audit.controller';
import { AuditLog } from './persistence/audit-log';

/**
 * The signed, hash-chained operator audit of a tenant: rule set lifecycle and canary transitions
 * append to it inside their own transaction; the routes read and verify it.
 */
@Module({
  controllers: [AuditController],
  providers: [AuditSigner, AuditLog, AuditTrail],
  exports: [AuditSigner, AuditLog, AuditTrail],
})
export class AuditModule {}
