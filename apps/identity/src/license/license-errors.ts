/** Stable `code` values of the license server's endpoints (in the hosted envelope's `errors[].code`). */
export const LicenseErrors = {
  /** Admin route without `X-Admin-Api-Key` or with a wrong one (401). */
  AdminKeyInvalid: 'ADMIN_KEY_INVALID',
  /** Admin route while `LicenseServer:AdminApiKey` is not configured (Development/Testing only) (401). */
  AdminKeyNotConfigured: 'ADMIN_KEY_NOT_CONFIGURED',
  /** A license key that is not `ARB-XXXXX-XXXXX-XXXXX-XXXXX-CC` or whose check code is wrong (400). */
  LicenseKeyMalformed: 'LICENSE_KEY_MALFORMED',
  /** No license with this key (404). */
  LicenseNotFound: 'LICENSE_NOT_FOUND',
  /** The license is revoked (403). */
  LicenseRevoked: 'LICENSE_REVOKED',
  /** The license has expired (403). */
  LicenseExpired: 'LICENSE_EXPIRED',
  /** `maxActivations` machines are activated already (409). */
  ActivationLimitReached: 'ACTIVATION_LIMIT_REACHED',
  /** The machine is activated already for another environment (409). */
  ActivationBindingMismatch: 'ACTIVATION_BINDING_MISMATCH',
  /** An assembly of the manifest is not approved globally nor for this license (403). */
  ManifestNotApproved: 'MANIFEST_NOT_APPROVED',
  /** Feature update with neither `add` nor `remove` entries (400). */
  FeatureUpdateEmpty: 'FEATURE_UPDATE_EMPTY',
  /** Assembly approval scope `License` without an existing `licenseId`, or `Global` with one (400/404). */
  ApprovalScopeInvalid: 'APPROVAL_SCOPE_INVALID',
  /** `LicenseConfigs:RequireSignedPolicy` is on and the activation carries no `signedPolicy` (400). */
  SignedPolicyRequired: 'SIGNED_POLICY_REQUIRED',
  /**
   * The `signedPolicy` presented fails verification (malformed, unknown key, bad signature, not a license
   * record) or is the record of another license (401).
   */
  SignedPolicyInvalid: 'SIGNED_POLICY_INVALID',
  /** Heartbeat with an unknown or already used nonce (409). */
  NonceInvalid: 'NONCE_INVALID',
  /** Heartbeat whose proof id, license id or fingerprint do not match the nonce's activation (403). */
  HeartbeatMismatch: 'HEARTBEAT_MISMATCH',
} as const;
