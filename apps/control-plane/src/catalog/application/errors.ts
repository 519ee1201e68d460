/** Stable `code` values of the catalog and contract routes. */
export const CatalogErrors = {
  RuleNotFound: 'RULE_NOT_FOUND',
  FlowNotFound: 'FLOW_NOT_FOUND',
  NodeNotFound: 'NODE_NOT_FOUND',
  DecisionTableNotFound: 'DECISION_TABLE_NOT_FOUND',
  UnknownSourceType: 'UNKNOWN_SOURCE_TYPE',
  SnapshotNotFound: 'SNAPSHOT_NOT_FOUND',
} as const;
