/**
 * The tenant whose rule sets serve every tenant that has no rule set of its own for a workflow (so a
 * platform operator can publish one workflow to every tenant and canary it per tenant).
 */
export const SHARED_RULESET_TENANT = 'default';
