import { decisionsService } from '@arbiter/decisions';
import { ServiceUnderTest, startServiceForTest } from '@arbiter/testing';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScenariosGate } from '../src/commands/scenarios';

jest.setTimeout(180_000);

const table = (amountCell = '>= 5000', extraRow = false) => ({
  name: 'Loan gate',
  hitPolicy: 'First',
  inputColumns: [
    { name: 'amount', type: 'number' },
    { name: 'risk', type: 'string' },
  ],
  outputColumns: [{ name: 'decision', type: 'string' }],
  rows: [
    { id: 'r1', inputConditions: { amount: amountCell, risk: '"high"' }, outputs: { decision: 'reject' } },
    {
      id: 'r2',
      inputConditions: { amount: '[1000..5000)', risk: '"low","medium"' },
      outputs: { decision: 'approve' },
    },
    { id: 'r3', inputConditions: { amount: '< 1000' }, outputs: { decision: 'fast-track' } },
    ...(extraRow ? [{ id: 'r4', inputConditions: { amount: '< 10' }, outputs: { decision: 'never' } }] : []),
  ],
});

describe('arbiter scenarios gate', () => {
  let sut: ServiceUnderTest;
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-gate-'));
  const headers = { 'content-type': 'application/json', 'x-tenant-id': 'acme' };
  const send = async (method: string, path: string, body: unknown) =>
    (
      await fetch(`${sut.url}/api/v1/decision-tables${path}`, { method, headers, body: JSON.stringify(body) })
    ).json() as any;
  beforeAll(async () => {
    sut = await startServiceForTest(decisionsService, 'ConnectionStrings:DecisionTablesDb');
  });
  afterAll(() => sut?.stop());

  it('passes a table its scenarios cover, then fails the version that moves a boundary, with JUnit and SARIF', async () => {
    const { id } = await send('POST', '', table());
    const junit = join(dir, 'green.xml');
    const sarif = join(dir, 'green.sarif');
    let out = '';
    const green = await runScenariosGate(
      { server: sut.url, table: id, tenant: 'acme', minCoverage: '90', minMutationScore: '90', junit, sarif },
      (t) => (out += t),
    );
    expect(green).toBe(0);
    expect(out).toMatch(/^PASSED: scenario gate of table 'Loan gate' v1/);
    expect(out).toMatch(/row coverage\s+100 % \(3\/3\)\s+90 %/);
    expect(out).toMatch(/mutation score\s+\d+(\.\d+)? %/);
    const greenXml = readFileSync(junit, 'utf8');
    expect(greenXml).toContain('<testsuite name="scenarios.Loan gate"');
    expect(greenXml).toMatch(/failures="0" errors="0"/);
    expect(
      JSON.parse(readFileSync(sarif, 'utf8')).runs[0].results.filter((r: any) => r.level === 'error'),
    ).toEqual([]);

    // version 2 moves r1's boundary: the plan (from v1) fails on 5000
    await send('PUT', `/${id}`, table('>= 5001'));
    out = '';
    const red = await runScenariosGate(
      {
        server: sut.url,
        table: id,
        tenant: 'acme',
        junit: join(dir, 'red.xml'),
        sarif: join(dir, 'red.sarif'),
      },
      (t) => (out += t),
    );
    expect(red).toBe(1);
    expect(out).toMatch(/^FAILED: scenario gate of table 'Loan gate' v2 \(plan from v1\)/);
    expect(out).toContain("amount = 5000 is outside '>= 5001' of r1, which had to match");
    const redXml = readFileSync(join(dir, 'red.xml'), 'utf8');
    expect(redXml).toMatch(/<failure message="amount = 5000 is outside &apos;&gt;= 5001&apos; of r1/);
    const redSarif = JSON.parse(readFileSync(join(dir, 'red.sarif'), 'utf8'));
    expect(redSarif.version).toBe('2.1.0');
    const failed = redSarif.runs[0].results.filter((r: any) => r.ruleId === 'scenario-failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0].locations[0].logicalLocations[0].fullyQualifiedName).toBe('Loan gate/r1');
  });

  it('fails below the coverage threshold and reports an unknown table as an error', async () => {
    const { id } = await send('POST', '', { ...table('>= 5000', true), name: 'Shadowed' });
    let out = '';
    const code = await runScenariosGate(
      { server: sut.url, table: id, tenant: 'acme', minCoverage: '90', mutation: false },
      (t) => (out += t),
    );
    expect(code).toBe(1);
    expect(out).toContain('rows no scenario reaches: r4');
    expect(out).toContain('gate: row coverage 75 % is below 90 %');
    await expect(
      runScenariosGate(
        { server: sut.url, table: '00000000-0000-4000-8000-000000000000', tenant: 'acme' },
        () => {},
      ),
    ).rejects.toThrow(/HTTP 404 TABLE_NOT_FOUND/);
    await expect(
      runScenariosGate({ server: sut.url, table: id, minCoverage: '101' }, () => {}),
    ).rejects.toThrow(/--min-coverage must be a number from 0 to 100/);
  });
});
