export { CopilotModule } from './copilot.module';
export { COPILOT_SETTINGS, CopilotSettings } from './copilot.settings';
export { COPILOT_ENTITIES } from './persistence/provenance.entity';
export { DraftRuleSet, type DraftRequest, type DraftResult } from './application/draft-ruleset';
export { CopilotErrors } from './application/copilot-errors';
export { DRAFT_SHAPES } from './domain/shape-schemas';
export { copilotTools } from './copilot-tools';
export { ProvenanceRepository } from './persistence/provenance.repository';
