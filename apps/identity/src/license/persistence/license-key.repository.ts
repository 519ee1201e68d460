import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';

/** A row of `license_keys`. */
export interface LicenseKeyRow {
  id: string;
  license_key: string;
  organization_id: string;
  organization_name: string;
  tier: 'Free' | 'Licensed' | 'Enterprise';
  valid_days: number;
  max_activations: number;
  allowed_features: string[];
  created_at: Date;
  expires_at: Date;
  is_revoked: boolean;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

export type NewLicenseKey = Pick<
  LicenseKeyRow,
  | 'id'
  | 'license_key'
  | 'organization_id'
  | 'organization_name'
  | 'tier'
  | 'valid_days'
  | 'max_activations'
  | 'allowed_features'
  | 'expires_at'
>;

/** `license_keys`: the issued keys, their features and their revocation. */
@Injectable()
export class LicenseKeyRepository {
  async insert(m: EntityManager, row: NewLicenseKey): Promise<LicenseKeyRow> {
    const rows: LicenseKeyRow[] = await m.query(
      `INSERT INTO license_keys (id, license_key, organization_id, organization_name, tier, valid_days,
                                 max_activations, allowed_features, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING *`,
      [
        row.id,
        row.license_key,
        row.organization_id,
        row.organization_name,
        row.tier,
        row.valid_days,
        row.max_activations,
        row.allowed_features,
        row.expires_at,
      ],
    );
    return rows[0];
  }

  async byKey(m: EntityManager, licenseKey: string): Promise<LicenseKeyRow | undefined> {
    const rows: LicenseKeyRow[] = await m.query(`SELECT * FROM license_keys WHERE license_key = $1`, [
      licenseKey,
    ]);
    return rows[0];
  }

  /** The key locked for the rest of the transaction: activations of one key run one after the other. */
  async byKeyForUpdate(m: EntityManager, licenseKey: string): Promise<LicenseKeyRow | undefined> {
    const rows: LicenseKeyRow[] = await m.query(
      `SELECT * FROM license_keys WHERE license_key = $1 FOR UPDATE`,
      [licenseKey],
    );
    return rows[0];
  }

  async exists(m: EntityManager, id: string): Promise<boolean> {
    const rows: unknown[] = await m.query(`SELECT 1 FROM license_keys WHERE id = $1`, [id]);
    return rows.length > 0;
  }

  /**
   * Adds and removes features in one statement (the row lock makes concurrent updates apply one after
   * the other, each on the other's result); undefined when the key does not exist.
   */
  async updateFeatures(
    m: EntityManager,
    licenseKey: string,
    add: string[],
    remove: string[],
  ): Promise<string[] | undefined> {
    // an UPDATE answers [rows, affected count] through TypeORM's postgres driver
    const [rows]: [{ allowed_features: string[] }[], number] = await m.query(
      `UPDATE license_keys k
          SET allowed_features = ARRAY(
            SELECT f FROM (
              SELECT f, min(o) AS o FROM unnest(k.allowed_features || $2::text[]) WITH ORDINALITY AS u(f, o)
               GROUP BY f
            ) d WHERE NOT (f = ANY($3::text[])) ORDER BY o)
        WHERE license_key = $1
        RETURNING allowed_features`,
      [licenseKey, add, remove],
    );
    return rows[0]?.allowed_features;
  }

  /** Marks the key revoked; the row as it was (undefined when unknown). */
  async revoke(m: EntityManager, licenseKey: string, reason: string): Promise<LicenseKeyRow | undefined> {
    const [rows]: [LicenseKeyRow[], number] = await m.query(
      `UPDATE license_keys SET is_revoked = true, revoked_at = coalesce(revoked_at, now()),
              revoked_reason = coalesce(revoked_reason, $2)
        WHERE license_key = $1 RETURNING *`,
      [licenseKey, reason],
    );
    return rows[0];
  }
}
