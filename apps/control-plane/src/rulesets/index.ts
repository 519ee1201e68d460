export { RuleSetsModule } from './rulesets.module';
export {
  ApprovalSettings,
  RULESET_SETTINGS,
  RuleStoreSettings,
  ScenarioGateSettings,
} from './rulesets.settings';
export { ActivateVersion, type ActivationResult } from './application/activate-version';
export { RuleSetCache, REVISION_POLL_MS, type CachedRuleSet } from './application/ruleset-cache';
export {
  invalidRuleSet,
  RuleSetErrors,
  ruleSetNotFound,
  versionNotFound,
} from './application/ruleset-errors';
export { RuleSetQueries } from './application/ruleset-queries';
export { SaveRuleSet, type SaveInput, type SaveResult, type SavedVersion } from './application/save-ruleset';
export { LifecycleHooks, type LifecycleHook, type VersionTransition } from './application/lifecycle-hooks';
export { ChangePublisher } from './application/change-publisher';
export { lockSet, nextStatus, requireVersion } from './application/ruleset-lookups';
export { InMemoryRuleRegistry, RuleRegistry } from './domain/rule-registry';
export { SHARED_RULESET_TENANT } from './domain/shared-tenant';
export { judgeTransition, type RuleSetStatus } from './domain/version-lifecycle';
export { RULE_SET_ENTITIES } from './persistence/entities';
export { RuleSetRepository, type CurrentVersion } from './persistence/ruleset.repository';
