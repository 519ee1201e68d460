import type { AuthenticatedUser } from '@arbiter/platform';

export interface PipelineRequest {
  method: string;
  path: string;
  tenantId: string;
  user?: AuthenticatedUser;
}

/**
 * License check step of the request pipeline (after authentication, before quota). The default is a
 * no-op; the license issue provides a real one (`License:EnforceOnMiddleware`). Throw an AppError to refuse.
 */
export abstract class LicenseCheck {
  abstract check(request: PipelineRequest): Promise<void> | void;
}

/** Quota step of the pipeline (after the license check, before permissions). Default no-op. */
export abstract class QuotaCheck {
  abstract check(request: PipelineRequest): Promise<void> | void;
}

export class NoLicenseCheck extends LicenseCheck {
  check(): void {}
}

export class NoQuotaCheck extends QuotaCheck {
  check(): void {}
}
