import type { InputColumn, OutputColumn } from '@arbiter/rule-engine';
import { randomUUID } from 'node:crypto';

/** A table definition as stored per version (row ids assigned, priorities filled). */
export interface StoredDefinition {
  name: string;
  description?: string;
  hitPolicy: string;
  inputColumns: InputColumn[];
  outputColumns: OutputColumn[];
  rows: StoredRow[];
}

export interface StoredRow {
  id: string;
  priority: number;
  inputConditions: Record<string, string>;
  outputs: Record<string, unknown>;
}

/** Full table (latest or one version), as GET returns it. */
export interface DecisionTableView extends StoredDefinition {
  id: string;
  version: number;
  createdAt: string;
  modifiedAt: string;
  tenantId: string;
}

export interface TableSummary {
  id: string;
  name: string;
  description: string | null;
  inputColumnCount: number;
  outputColumnCount: number;
  rowCount: number;
  version: number;
  updatedAt: string;
  tenantId: string;
}

/**
 * Fills what the service assigns: row ids (kept when the client sends them, so diffs can follow a
 * row across versions), priorities (default 0) and `-` for absent conditions is left implicit.
 */
export function toStoredDefinition(input: Record<string, unknown>): StoredDefinition {
  const rows = (input.rows as Record<string, unknown>[]).map((row) => ({
    id: typeof row.id === 'string' && row.id.trim() ? row.id : randomUUID(),
    priority: typeof row.priority === 'number' ? row.priority : 0,
    inputConditions: (row.inputConditions as Record<string, string>) ?? {},
    outputs: (row.outputs as Record<string, unknown>) ?? {},
  }));
  return {
    name: String(input.name).trim(),
    ...(typeof input.description === 'string' ? { description: input.description } : {}),
    hitPolicy: String(input.hitPolicy),
    inputColumns: input.inputColumns as InputColumn[],
    outputColumns: input.outputColumns as OutputColumn[],
    rows,
  };
}
