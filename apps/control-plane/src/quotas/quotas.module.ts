import { Module } from '@nestjs/common';
import { QuotaGate } from './application/quota-gate';
import { QuotasService } from './application/quotas.service';
import { TenantLimits } from './application/tenant-limits';
import { QuotaAccess } from './http/quota-access';
import { QuotasController } from './http/quotas.controller';
import { PgQuotaRepository } from './persistence/pg-quota-repository';
import { QuotaRepository } from './persistence/quota-repository';

/**
 * Per-tenant quotas: tier presets and explicit limits (`…/quotas/limits`, `…/quotas/upgrade`),
 * usage (`…/quotas/usage`), and `QuotaGate`, the admission of rule executions shared by every
 * replica through the database.
 */
@Module({
  controllers: [QuotasController],
  providers: [
    { provide: QuotaRepository, useClass: PgQuotaRepository },
    TenantLimits,
    QuotaGate,
    QuotasService,
    QuotaAccess,
  ],
  exports: [QuotaGate, QuotasService],
})
export class QuotasModule {}
