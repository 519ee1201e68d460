import { randomUUID } from 'node:crypto';
import { MigratedDatabase, startMigratedDatabase } from '@arbiter/testing';
import { ROLE_DEFINITION } from '../auth';
import { IDENTITY_MIGRATIONS } from '../database';
import { CrudRepository } from './crud.repository';

// Medium test: the generic CRUD statements on a real database (PGlite, or PostgreSQL with
// TEST_DATABASE_URL) over the roles table, as the application role (row-level security applies).

describe('CrudRepository (real database)', () => {
  const rows = new CrudRepository();
  let db: MigratedDatabase;
  beforeAll(async () => {
    db = await startMigratedDatabase([], IDENTITY_MIGRATIONS);
  });
  afterAll(() => db?.stop());

  const insert = (tenantId: string, name: string) => {
    const id = randomUUID();
    return db.uow
      .run((m) => rows.insert(m, ROLE_DEFINITION, { id, tenant_id: tenantId, name, permissions: ['a'] }), {
        tenantId,
      })
      .then(() => id);
  };

  it('inserts, reads under API field names, pages oldest first, updates and soft-deletes', async () => {
    const first = await insert('acme', 'First');
    const second = await insert('acme', 'Second');
    await db.uow.run(
      async (m) => {
        expect(await rows.find(m, ROLE_DEFINITION, first)).toEqual({
          id: first,
          name: 'First',
          description: null,
          permissions: ['a'],
          creationTime: expect.any(Date),
          lastModificationTime: null,
        });
        expect(await rows.count(m, ROLE_DEFINITION)).toBe(2);
        expect((await rows.page(m, ROLE_DEFINITION, 1, 1)).map((r) => r.id)).toEqual([second]);
        await rows.update(m, ROLE_DEFINITION, first, { description: 'changed' });
        expect(await rows.find(m, ROLE_DEFINITION, first)).toMatchObject({
          description: 'changed',
          lastModificationTime: expect.any(Date),
        });
        expect(await rows.softDelete(m, ROLE_DEFINITION, first)).toBeInstanceOf(Date);
        expect(await rows.find(m, ROLE_DEFINITION, first)).toBeUndefined();
        expect(await rows.count(m, ROLE_DEFINITION)).toBe(1);
      },
      { tenantId: 'acme' },
    );
  });

  it("keeps tenants apart: another tenant's rows are neither counted, read, changed nor deleted", async () => {
    const id = await insert('initech', 'Private');
    await db.uow.run(
      async (m) => {
        expect(await rows.find(m, ROLE_DEFINITION, id)).toBeUndefined();
        expect((await rows.page(m, ROLE_DEFINITION, 100, 0)).map((r) => r.id)).not.toContain(id);
        await rows.update(m, ROLE_DEFINITION, id, { description: 'hacked' });
      },
      { tenantId: 'acme' },
    );
    await db.uow.run(
      async (m) => expect(await rows.find(m, ROLE_DEFINITION, id)).toMatchObject({ description: null }),
      { tenantId: 'initech' },
    );
  });

  it('refuses a column name that is not an identifier before it reaches SQL', async () => {
    await expect(
      db.uow.run((m) => rows.update(m, ROLE_DEFINITION, randomUUID(), { 'name; DROP TABLE x': 1 }), {
        tenantId: 'acme',
      }),
    ).rejects.toThrow(/column name/);
  });
});
