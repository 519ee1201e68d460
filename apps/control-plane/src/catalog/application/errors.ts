import { AuthErrorCodes } from '@arbiter/auth';
import { defineErrorFamily } from '@arbiter/platform';
import { RequestParamErrors } from '../../shared';

/** Stable `code` values of the catalog and contract routes. */
export const CatalogErrors = {
  RuleNotFound: 'RULE_NOT_FOUND',
  FlowNotFound: 'FLOW_NOT_FOUND',
  NodeNotFound: 'NODE_NOT_FOUND',
  DecisionTableNotFound: 'DECISION_TABLE_NOT_FOUND',
  UnknownSourceType: 'UNKNOWN_SOURCE_TYPE',
  SnapshotNotFound: 'SNAPSHOT_NOT_FOUND',
} as const;

/** The errors of the rule catalog, contract metadata and UI catalog routes. */
export const CatalogErrorFamily = defineErrorFamily({
  name: 'CatalogError',
  envelope: 'trace',
  description: 'A catalog failure: `{ error, code, traceId }` (`details` on validation failures).',
  codes: [CatalogErrors, RequestParamErrors, AuthErrorCodes],
});
