export interface LicenseInfo {
  isValid: boolean;
  licenseId: string | null;
  activationProof?: unknown;
  allowedFeatures: string[] | null;
}

/**
 * Whether no license is configured at all: no license id, no activation proof and no feature list
 * (`npm start` out of the box answers `allowedFeatures: []`, `isValid: false`). The console then hides
 * nothing and the services decide; the header says the license is not valid.
 */
export function licenseUnconfigured(info: LicenseInfo): boolean {
  return !info.licenseId && !info.activationProof && !(info.allowedFeatures ?? []).length;
}

/**
 * Whether the license lets the console show a page that needs `feature`: a page without one is always
 * shown; `*` passes every gate (spec); otherwise the feature must be listed. Validity is shown in the
 * header, not used here: the features are what the runtime was given.
 */
export function pageAllowed(feature: string | undefined, info: LicenseInfo | null): boolean {
  if (!feature || !info || licenseUnconfigured(info)) return true;
  const features = info.allowedFeatures ?? [];
  return features.includes('*') || features.includes(feature);
}
