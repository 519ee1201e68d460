import { ApplicationRole1732060000001 } from './1732060000001-application-role';
import { DecisionTables1732060000200 } from './1732060000200-decision-tables';
import { Scenarios1732060000300 } from './1732060000300-scenarios';
import { WorkflowScenarios1732060000310 } from './1732060000310-workflow-scenarios';
import { ScenarioSimilarity1732060000320 } from './1732060000320-scenario-similarity';
import { EventWindows1732060000900 } from '../../event-windows';
import { CrossTenantReader1732060002401 } from './1732060002401-cross-tenant-reader';

/** Every migration of the decisions service, in order. */
export const DECISIONS_MIGRATIONS = [
  ApplicationRole1732060000001,
  DecisionTables1732060000200,
  Scenarios1732060000300,
  WorkflowScenarios1732060000310,
  ScenarioSimilarity1732060000320,
  EventWindows1732060000900,
  CrossTenantReader1732060002401,
];
