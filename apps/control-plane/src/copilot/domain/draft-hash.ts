import { canonicalJson } from '@arbiter/audit-chain';
import { createHash } from 'node:crypto';

/**
 * The canonical form of a rule set document: RFC 8785 JSON (keys sorted, no whitespace), so the same
 * content hashes alike whatever its key order or spacing (the database's jsonb reorders keys).
 */
export function canonicalDraft(document: unknown): string {
  return canonicalJson(document);
}

/** SHA-256 (lowercase hex, 64 characters) of the canonical form: `AiOriginalHash`. */
export function draftHash(document: unknown): string {
  return createHash('sha256').update(canonicalDraft(document), 'utf8').digest('hex');
}
