import {
  DecisionTableAuditEntity,
  DecisionTableEntity,
  DecisionTableVersionEntity,
} from '../persistence/entities';
import { DecisionTableView, TableSummary } from './table-model';

/** What the API answers for stored rows: ISO timestamps, the definition spread into the table. */

export function tableView(table: DecisionTableEntity, stored: DecisionTableVersionEntity): DecisionTableView {
  return {
    id: table.id,
    ...stored.definition,
    version: stored.version,
    createdAt: table.createdAt.toISOString(),
    modifiedAt: stored.createdAt.toISOString(),
    tenantId: table.tenantId,
  };
}

/** A list entry: counts of the latest version's columns and rows. */
export function tableSummary(table: DecisionTableEntity, latest: DecisionTableVersionEntity): TableSummary {
  return {
    id: table.id,
    name: table.name,
    description: table.description,
    inputColumnCount: latest.definition.inputColumns.length,
    outputColumnCount: latest.definition.outputColumns.length,
    rowCount: latest.definition.rows.length,
    version: table.latestVersion,
    updatedAt: table.modifiedAt.toISOString(),
    tenantId: table.tenantId,
  };
}

export function versionView(v: DecisionTableVersionEntity) {
  return {
    version: v.version,
    createdAt: v.createdAt.toISOString(),
    createdBy: v.createdBy,
    comment: v.comment ?? '',
  };
}

export function auditEntryView(a: DecisionTableAuditEntity) {
  return {
    timestamp: a.timestamp.toISOString(),
    action: a.action,
    actor: a.actor,
    version: a.version,
    comment: a.comment,
    changesSummary: a.changesSummary,
  };
}
