import { checkLicenseKey } from '@arbiter/licensing';
import { AppError } from '@arbiter/platform';
import { LicenseErrors } from './license-errors';

/** The normal form of a well-formed key, else 400 `LICENSE_KEY_MALFORMED` (a typo is caught by the check code). */
export function wellFormedKey(input: string): string {
  const checked = checkLicenseKey(input);
  if (checked.ok) return checked.licenseKey;
  throw AppError.badRequest(
    LicenseErrors.LicenseKeyMalformed,
    checked.reason === 'CHECK_CODE'
      ? 'The license key has a wrong check code: it is mistyped'
      : 'The license key is not of the form ARB-XXXXX-XXXXX-XXXXX-XXXXX-CC',
  );
}
