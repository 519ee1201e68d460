import { MigrationInterface, QueryRunner } from 'typeorm';
import { RequestContext } from '../src/context/request-context';
import { parseConnectionString } from '../src/database/connection-string';
import { Database } from '../src/database/database';
import { migrationApplicationRole } from '../src/database/database.settings';
import {
  enableTenantIsolation,
  ensureApplicationRole,
  separateCrossTenantReads,
} from '../src/database/tenant-isolation';
import { UnitOfWork } from '../src/database/unit-of-work';
import { createTestDatabase, TestDatabase } from './test-database';

class CreateNotes1700000000000 implements MigrationInterface {
  name = 'CreateNotes1700000000000';
  async up(runner: QueryRunner): Promise<void> {
    const role = migrationApplicationRole();
    await ensureApplicationRole(runner, role);
    await runner.query(
      `CREATE TABLE notes (id serial PRIMARY KEY, tenant_id text NOT NULL, body text NOT NULL)`,
    );
    await enableTenantIsolation(runner, 'notes', role);
  }
  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE notes');
  }
}

describe('row-level security (tenant isolation)', () => {
  let testDb: TestDatabase;
  let database: Database;
  let uow: UnitOfWork;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    database = await Database.start({
      name: 'test',
      target: parseConnectionString(testDb.url, 'test'),
      entities: [],
      migrations: [CreateNotes1700000000000],
      applicationRole: 'arbiter_app',
      poolSize: 4,
    });
    uow = new UnitOfWork(database);
  });

  afterAll(async () => {
    await database?.stop();
    await testDb?.drop();
  });

  it(`runs as a role that is neither superuser nor owner (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, async () => {
    const [row] = await uow.run((m) =>
      m.query(`SELECT current_user AS who, r.rolsuper AS super, r.rolbypassrls AS bypass,
                      (SELECT tableowner FROM pg_tables WHERE tablename = 'notes') AS owner
               FROM pg_roles r WHERE r.rolname = current_user`),
    );
    expect(row.who).toBe('arbiter_app');
    expect(row.super).toBe(false);
    expect(row.bypass).toBe(false);
    expect(row.owner).not.toBe('arbiter_app');
  });

  it("hides tenant B's rows from tenant A even with no WHERE clause", async () => {
    await uow.run(
      (m) => m.query(`INSERT INTO notes (tenant_id, body) VALUES ('tenant-a', 'a1'), ('tenant-a', 'a2')`),
      {
        tenantId: 'tenant-a',
      },
    );
    await uow.run((m) => m.query(`INSERT INTO notes (tenant_id, body) VALUES ('tenant-b', 'b1')`), {
      tenantId: 'tenant-b',
    });

    const seenByA = await uow.run((m) => m.query('SELECT tenant_id, body FROM notes ORDER BY body'), {
      tenantId: 'tenant-a',
    });
    const seenByB = await uow.run((m) => m.query('SELECT tenant_id, body FROM notes ORDER BY body'), {
      tenantId: 'tenant-b',
    });
    expect(seenByA.map((r: { body: string }) => r.body)).toEqual(['a1', 'a2']);
    expect(seenByB.map((r: { body: string }) => r.body)).toEqual(['b1']);

    const updated = await uow.run((m) => m.query(`UPDATE notes SET body = 'hacked' RETURNING id`), {
      tenantId: 'tenant-a',
    });
    expect(updated).toHaveLength(2);
    const stillB = await uow.run((m) => m.query('SELECT body FROM notes'), { tenantId: 'tenant-b' });
    expect(stillB).toEqual([{ body: 'b1' }]);
  });

  it('refuses inserting a row under another tenant, and writes nothing', async () => {
    await expect(
      uow.run((m) => m.query(`INSERT INTO notes (tenant_id, body) VALUES ('tenant-b', 'smuggled')`), {
        tenantId: 'tenant-a',
      }),
    ).rejects.toThrow(/row-level security/);
    const rows = await uow.run((m) => m.query(`SELECT body FROM notes WHERE body = 'smuggled'`), {
      tenantId: 'tenant-b',
    });
    expect(rows).toEqual([]);
  });

  it('takes the tenant from the ambient request context', async () => {
    const rows = await RequestContext.run({ tenantId: 'tenant-b' }, () =>
      uow.run((m) => m.query('SELECT body FROM notes')),
    );
    expect(rows).toEqual([{ body: 'b1' }]);
  });

  it('sees nothing when no tenant matches, and the setting does not leak to the next transaction', async () => {
    await uow.run((m) => m.query('SELECT 1'), { tenantId: 'tenant-a' });
    const [{ setting }] = await database.dataSource.query(
      `SELECT current_setting('app.tenant_id', true) AS setting`,
    );
    expect(setting ?? '').toBe('');
    expect(await uow.run((m) => m.query('SELECT * FROM notes'), { tenantId: 'nobody' })).toEqual([]);
  });

  it('lets an explicit cross-tenant unit of work read all tenants (administrators)', async () => {
    const rows = await uow.run((m) => m.query('SELECT DISTINCT tenant_id FROM notes ORDER BY tenant_id'), {
      tenantId: 'tenant-a',
      acrossTenants: true,
    });
    expect(rows.map((r: { tenant_id: string }) => r.tenant_id)).toEqual(['tenant-a', 'tenant-b']);
  });

  it('gives the application role no way to lift the tenant filter: the old app.all_tenants setting changes nothing', async () => {
    const rows = await uow.run(
      async (m) => {
        await m.query(`SELECT set_config('app.all_tenants', 'on', true)`);
        return m.query('SELECT DISTINCT tenant_id FROM notes ORDER BY tenant_id');
      },
      { tenantId: 'tenant-a' },
    );
    expect(rows.map((r: { tenant_id: string }) => r.tenant_id)).toEqual(['tenant-a']);
    const [membership] = await uow.run((m) =>
      m.query(
        `SELECT current_user AS who, pg_has_role(current_user, 'arbiter_app_all_tenants', 'MEMBER') AS reader`,
      ),
    );
    expect(membership).toEqual({ who: 'arbiter_app', reader: false });
  });

  it('reads across tenants as the reader role, which cannot write', async () => {
    const [who] = await uow.run((m) => m.query('SELECT current_user AS who'), { acrossTenants: true });
    expect(who.who).toBe('arbiter_app_all_tenants');
    await expect(
      uow.run((m) => m.query(`UPDATE notes SET body = 'everyone'`), { acrossTenants: true }),
    ).rejects.toThrow(/permission denied/);
    await expect(
      uow.run((m) => m.query(`INSERT INTO notes (tenant_id, body) VALUES ('tenant-a', 'x')`), {
        tenantId: 'tenant-a',
        acrossTenants: true,
      }),
    ).rejects.toThrow(/permission denied/);
    const everyone = await uow.run((m) => m.query(`SELECT body FROM notes WHERE body = 'everyone'`), {
      acrossTenants: true,
    });
    expect(everyone).toEqual([]);
  });

  it('moves a table migrated with the old setting-based policy to the reader role', async () => {
    const runner = database.dataSource.createQueryRunner();
    try {
      await runner.query(`CREATE TABLE legacy_notes (tenant_id text NOT NULL, body text NOT NULL)`);
      await runner.query(`ALTER TABLE legacy_notes ENABLE ROW LEVEL SECURITY`);
      await runner.query(`ALTER TABLE legacy_notes FORCE ROW LEVEL SECURITY`);
      await runner.query(`
        CREATE POLICY tenant_isolation ON legacy_notes
          USING (tenant_id = current_setting('app.tenant_id', true) OR current_setting('app.all_tenants', true) = 'on')
          WITH CHECK (tenant_id = current_setting('app.tenant_id', true))`);
      await runner.query(`GRANT SELECT, INSERT ON legacy_notes TO arbiter_app`);
      await separateCrossTenantReads(runner, 'arbiter_app');
    } finally {
      await runner.release();
    }
    for (const tenant of ['tenant-a', 'tenant-b']) {
      await uow.run((m) => m.query(`INSERT INTO legacy_notes VALUES ($1, 'n')`, [tenant]), {
        tenantId: tenant,
      });
    }
    const lifted = await uow.run(
      async (m) => {
        await m.query(`SELECT set_config('app.all_tenants', 'on', true)`);
        return m.query('SELECT tenant_id FROM legacy_notes');
      },
      { tenantId: 'tenant-a' },
    );
    expect(lifted).toEqual([{ tenant_id: 'tenant-a' }]);
    const all = await uow.run((m) => m.query('SELECT tenant_id FROM legacy_notes ORDER BY tenant_id'), {
      acrossTenants: true,
    });
    expect(all).toEqual([{ tenant_id: 'tenant-a' }, { tenant_id: 'tenant-b' }]);
  });
});
