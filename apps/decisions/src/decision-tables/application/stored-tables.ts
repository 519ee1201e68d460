import { AppError } from '@arbiter/platform';
import { EntityManager } from 'typeorm';
import { DecisionTableErrors as E } from '../errors';
import { DecisionTableRepository } from '../persistence/decision-table.repository';
import { DecisionTableEntity, DecisionTableVersionEntity } from '../persistence/entities';
import { isTableId } from '../request-values';

/**
 * Lookups shared by authoring and evaluation: a table, or one of its versions, or the 404 that names
 * what is missing. Run inside the caller's unit of work.
 */

export async function requireTable(
  repo: DecisionTableRepository,
  m: EntityManager,
  id: string,
): Promise<DecisionTableEntity> {
  const table = isTableId(id) ? await repo.find(m, id) : null;
  if (!table) throw AppError.notFound(E.TableNotFound, `Decision table '${id}' does not exist`);
  return table;
}

export interface LoadedVersion {
  table: DecisionTableEntity;
  stored: DecisionTableVersionEntity;
  /** The version number loaded: the one asked for, else the latest. */
  number: number;
}

/** A table and one of its versions (the latest when `version` is absent). */
export async function loadVersion(
  repo: DecisionTableRepository,
  m: EntityManager,
  id: string,
  version?: number,
): Promise<LoadedVersion> {
  const table = await requireTable(repo, m, id);
  const number = version ?? table.latestVersion;
  const stored = await repo.version(m, id, number);
  if (!stored)
    throw AppError.notFound(E.VersionNotFound, `Version ${number} of table '${id}' does not exist`);
  return { table, stored, number };
}

/**
 * A table and the stored JSON of one of its versions (the latest when `version` is absent), unparsed, as
 * UTF-8 bytes in parts (`versionBytes`).
 */
export async function loadVersionBytes(
  repo: DecisionTableRepository,
  m: EntityManager,
  id: string,
  version?: number,
): Promise<{ parts: Uint8Array[]; number: number }> {
  const table = await requireTable(repo, m, id);
  const number = version ?? table.latestVersion;
  const parts = await repo.versionBytes(m, id, number);
  if (parts === null)
    throw AppError.notFound(E.VersionNotFound, `Version ${number} of table '${id}' does not exist`);
  return { parts, number };
}
