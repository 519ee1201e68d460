import { randomUUID } from 'node:crypto';
import { MigratedDatabase, startMigratedDatabase } from '@arbiter/testing';
import { DECISIONS_MIGRATIONS } from '../../database';
import { StoredDefinition } from '../application/table-model';
import { TypeOrmDecisionTableRepository, VERSION_PART_BYTES } from './decision-table.repository';
import { DECISION_TABLE_ENTITIES, DecisionTableEntity } from './entities';

// Medium test: the repository against a real database (PGlite, or PostgreSQL with TEST_DATABASE_URL),
// as the application role, so row-level security applies as in production.

const definition = (name: string): StoredDefinition => ({
  name,
  hitPolicy: 'First',
  inputColumns: [{ name: 'age', type: 'number' }],
  outputColumns: [{ name: 'risk', type: 'string' }],
  rows: [{ id: 'r1', priority: 0, inputConditions: { age: '< 18' }, outputs: { risk: 'minor' } }],
});

describe('TypeOrmDecisionTableRepository (real database)', () => {
  const repo = new TypeOrmDecisionTableRepository();
  let db: MigratedDatabase;

  beforeAll(async () => {
    db = await startMigratedDatabase([...DECISION_TABLE_ENTITIES], DECISIONS_MIGRATIONS);
  });
  afterAll(() => db?.stop());

  /** Creates a table with `versions` versions in `tenantId`; returns its entity. */
  async function createTable(tenantId: string, name: string, versions = 1): Promise<DecisionTableEntity> {
    const now = new Date();
    const table: DecisionTableEntity = {
      id: randomUUID(),
      tenantId,
      name,
      description: null,
      latestVersion: versions,
      createdAt: now,
      modifiedAt: now,
    };
    await db.uow.run(
      async (m) => {
        await repo.insertTable(m, table);
        for (let v = 1; v <= versions; v++)
          await repo.insertVersion(m, {
            tableId: table.id,
            version: v,
            tenantId,
            definition: definition(name),
            createdAt: now,
            createdBy: 'alice',
            comment: v === 1 ? null : `v${v}`,
          });
        await repo.audit(m, {
          tenantId,
          tableId: table.id,
          tableName: name,
          action: 'Create',
          actor: 'alice',
          version: 1,
          comment: null,
          changesSummary: 'created',
          timestamp: now,
        });
      },
      { tenantId },
    );
    return table;
  }

  it('stores a table with its versions and audit, and reads them back', async () => {
    const table = await createTable('tenant-a', 'Loan risk', 3);
    await db.uow.run(
      async (m) => {
        expect(await repo.find(m, table.id)).toMatchObject({ name: 'Loan risk', latestVersion: 3 });
        expect(await repo.findByName(m, 'Loan risk')).toMatchObject({ id: table.id });
        expect((await repo.version(m, table.id, 2))?.definition).toEqual(definition('Loan risk'));
        expect(await repo.version(m, table.id, 4)).toBeNull();
        // the stored JSON as bytes in parts, unparsed: what a worker thread parses to analyse a large version
        const parts = (await repo.versionBytes(m, table.id, 2))!;
        expect(JSON.parse(Buffer.concat(parts).toString())).toEqual(definition('Loan risk'));
        expect(await repo.versionBytes(m, table.id, 4)).toBeNull();
        const versions = await repo.versions(m, table.id, 0, 2);
        expect(versions.map((v) => v.version)).toEqual([3, 2]);
        expect(versions[0]).toMatchObject({ createdBy: 'alice', comment: 'v3' });
        expect(await repo.countVersions(m, table.id)).toBe(3);
        expect((await repo.auditOf(m, table.id, 0, 10)).map((a) => a.action)).toEqual(['Create']);
      },
      { tenantId: 'tenant-a' },
    );
  });

  it('reads a large version back as bytes in parts of VERSION_PART_BYTES, characters straddling the cuts', async () => {
    const table = await createTable('tenant-a', 'Large', 1);
    const large = {
      ...definition('Large'),
      description: 'é€😀'.repeat(200_000),
      rows: [
        {
          id: 'r1',
          priority: 0,
          inputConditions: { __proto__: '< 18' },
          outputs: { risk: 'minör' },
        },
      ],
    } as unknown as StoredDefinition;
    // a key named __proto__ (a column a file import accepted) is data, as JSON.parse reads it
    large.rows[0].inputConditions = JSON.parse('{"__proto__": "< 18"}');
    await db.uow.run(
      async (m) => {
        await repo.insertVersion(m, {
          tableId: table.id,
          version: 2,
          tenantId: 'tenant-a',
          definition: large,
          createdAt: new Date(),
          createdBy: 'alice',
          comment: null,
        });
        const parts = (await repo.versionBytes(m, table.id, 2))!;
        expect(parts.length).toBeGreaterThan(2);
        expect(parts.slice(0, -1).every((p) => p.byteLength === VERSION_PART_BYTES)).toBe(true);
        expect(JSON.parse(Buffer.concat(parts).toString())).toEqual(large);
        // and the version read back whole, parsed from those parts
        const read = (await repo.version(m, table.id, 2))!;
        expect(read.definition).toEqual(large);
        expect(Object.hasOwn(read.definition.rows[0].inputConditions, '__proto__')).toBe(true);
        expect(read).toMatchObject({ version: 2, createdBy: 'alice', comment: null });
      },
      { tenantId: 'tenant-a' },
    );
  });

  it('updates the table row and deletes it with its versions, keeping the audit', async () => {
    const table = await createTable('tenant-a', 'Pricing', 1);
    await db.uow.run(
      async (m) => {
        await repo.updateTable(m, { ...table, name: 'Pricing 2', latestVersion: 2 });
        expect(await repo.find(m, table.id)).toMatchObject({ name: 'Pricing 2', latestVersion: 2 });
        expect(await repo.deleteTable(m, table.id)).toBe(1);
        expect(await repo.find(m, table.id)).toBeNull();
        expect(await repo.countVersions(m, table.id)).toBe(0);
        expect(await repo.auditOf(m, table.id, 0, 10)).toHaveLength(1);
      },
      { tenantId: 'tenant-a' },
    );
  });

  it('refuses a second table of the same name in a tenant (unique violation 23505)', async () => {
    await createTable('tenant-a', 'Unique name');
    await expect(createTable('tenant-a', 'Unique name')).rejects.toMatchObject({
      driverError: expect.objectContaining({ code: '23505' }),
    });
    await expect(createTable('tenant-b', 'Unique name')).resolves.toBeDefined();
  });

  it("keeps tenants apart: another tenant's table, versions and audit are invisible (row-level security)", async () => {
    const table = await createTable('tenant-c', 'Secret table', 2);
    await db.uow.run(
      async (m) => {
        expect(await repo.find(m, table.id)).toBeNull();
        expect(await repo.findByName(m, 'Secret table')).toBeNull();
        expect(await repo.version(m, table.id, 1)).toBeNull();
        expect(await repo.countVersions(m, table.id)).toBe(0);
        expect(await repo.auditOf(m, table.id, 0, 10)).toEqual([]);
        expect((await repo.list(m, 0, 100)).map((t) => t.tenantId)).not.toContain('tenant-c');
        // an unfiltered delete of another tenant's row deletes nothing
        expect(await repo.deleteTable(m, table.id)).toBe(0);
      },
      { tenantId: 'tenant-d' },
    );
    await db.uow.run(async (m) => expect(await repo.find(m, table.id)).not.toBeNull(), {
      tenantId: 'tenant-c',
    });
  });

  it('refuses writing a row for another tenant', async () => {
    await expect(
      db.uow.run((m) => repo.insertTable(m, { ...tableOf('tenant-e'), tenantId: 'tenant-f' }), {
        tenantId: 'tenant-e',
      }),
    ).rejects.toThrow(/row-level security/);
  });

  it('lists by name with paging, and reads the audit of every tenant in a cross-tenant unit of work', async () => {
    await createTable('tenant-g', 'b table');
    await createTable('tenant-g', 'a table');
    await createTable('tenant-g', 'c table');
    await db.uow.run(
      async (m) => {
        expect((await repo.list(m, 0, 2)).map((t) => t.name)).toEqual(['a table', 'b table']);
        expect((await repo.list(m, 2, 2)).map((t) => t.name)).toEqual(['c table']);
      },
      { tenantId: 'tenant-g' },
    );
    const all = await db.uow.run((m) => repo.auditAll(m, 0, 1000), {
      tenantId: 'tenant-g',
      acrossTenants: true,
    });
    expect(new Set(all.map((a) => a.tenantId))).toEqual(
      new Set(['tenant-a', 'tenant-b', 'tenant-c', 'tenant-g']),
    );
    const onlyC = await db.uow.run((m) => repo.auditAll(m, 0, 1000, 'tenant-c'), {
      tenantId: 'tenant-g',
      acrossTenants: true,
    });
    expect(onlyC.map((a) => a.tableName)).toEqual(['Secret table']);
  });
});

function tableOf(tenantId: string): DecisionTableEntity {
  const now = new Date();
  return {
    id: randomUUID(),
    tenantId,
    name: `t-${randomUUID()}`,
    description: null,
    latestVersion: 1,
    createdAt: now,
    modifiedAt: now,
  };
}
