/**
 * QuotaGate on the hot path: acquisitions per second and database statements per 1,000 acquisitions,
 * on one replica and on two replicas sharing one database (PGlite, or PostgreSQL with TEST_DATABASE_URL).
 *
 *   node bench/quotas/run.js   (TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test for PostgreSQL; N=200000)
 */
import { Database, RunningService, startService } from '@arbiter/platform';
import { startServiceForTest, ServiceUnderTest } from '@arbiter/testing';
import { controlPlaneService } from '../../apps/control-plane/src';
import { QuotaGate, QuotaLease } from '../../apps/control-plane/src/quotas';
import { QuotaRepository } from '../../apps/control-plane/src/quotas/persistence/quota-repository';

const N = Number(process.env.N ?? 200_000);

/** Counts the gate's database calls on one replica. */
function countCalls(service: RunningService) {
  const repository = service.app.get(QuotaRepository);
  const counts = { reserve: 0, lease: 0 };
  const reserve = repository.reserveEvaluations.bind(repository);
  const lease = repository.leaseSlots.bind(repository);
  repository.reserveEvaluations = (...args) => (counts.reserve++, reserve(...args));
  repository.leaseSlots = (...args) => (counts.lease++, lease(...args));
  return counts;
}

async function put(url: string, tenant: string, limits: Record<string, number | null>) {
  const res = await fetch(`${url}/api/v1/tenants/${tenant}/quotas/limits`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', 'x-tenant-id': tenant },
    body: JSON.stringify(limits),
  });
  if (!res.ok) throw new Error(`PUT limits: ${res.status} ${await res.text()}`);
}

/**
 * `workers` concurrent loops, each acquiring, holding the lease for one macrotask (an execution
 * that yields) and releasing, until `total` acquisitions are done.
 */
async function run(gates: QuotaGate[], tenant: string, total: number, workers: number) {
  let next = 0;
  let waited = 0;
  const loop = async (gate: QuotaGate) => {
    while (next++ < total) {
      let lease: QuotaLease | Promise<QuotaLease> = gate.acquire(tenant);
      if ('then' in lease) {
        waited++;
        lease = await lease;
      }
      if (workers > 1) await new Promise<void>((r) => setImmediate(r));
      lease.release();
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: workers }, (_, i) => loop(gates[i % gates.length])));
  const nanos = Number(process.hrtime.bigint() - started);
  return {
    perSecond: Math.round((total * 1e9) / nanos),
    nanosPerCall: nanos / total,
    waitedPercent: (100 * waited) / total,
  };
}

/** The best of three runs (the machine is shared). */
async function best(times: number, once: () => ReturnType<typeof run>) {
  const results = [];
  for (let i = 0; i < times; i++) results.push(await once());
  return results.sort((x, y) => y.perSecond - x.perSecond)[0];
}

const NO_GATE = { acquire: () => ({ release: () => undefined }) } as unknown as QuotaGate;

/** Prints acquisitions per second and database calls per 1,000 acquisitions. */
export async function main(): Promise<void> {
  let a: ServiceUnderTest | undefined;
  let b: RunningService | undefined;
  try {
    a = await startServiceForTest(controlPlaneService, 'ConnectionStrings:RuleControlPlaneDb', {
      overrides: { 'Logging:Level': 'silent' },
    });
    const socketDir = (a.service.app.get(Database).dataSource.options as { host?: string }).host!;
    b = await startService(controlPlaneService, {
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      overrides: {
        'Logging:Level': 'silent',
        'ConnectionStrings:RuleControlPlaneDb':
          a.database.kind === 'postgres'
            ? a.database.url
            : `postgres://postgres@localhost/postgres?host=${encodeURIComponent(socketDir)}`,
      },
    });
    const gateA = a.service.app.get(QuotaGate);
    const gateB = b.app.get(QuotaGate);
    const limited = {
      maxConcurrentExecutions: 200,
      maxEvaluationsPerMinute: 100_000_000,
      maxEvaluationsPerDay: null,
    };
    const unlimited = {
      maxConcurrentExecutions: null,
      maxEvaluationsPerMinute: null,
      maxEvaluationsPerDay: null,
    };
    const lines: string[] = [`database: ${a.database.kind}, ${N} acquisitions per case, best of 3`];
    const cases: [string, QuotaGate[], Record<string, number | null>, number][] = [
      ['limited, one replica, 1 loop (cost of a call)', [gateA], limited, 1],
      ['unlimited, one replica, 1 loop (cost of a call)', [gateA], unlimited, 1],
      ['limited, one replica, 100 loops', [gateA], limited, 100],
      ['limited, two replicas, 100 loops', [gateA, gateB], limited, 100],
      ['unlimited, one replica, 100 loops', [gateA], unlimited, 100],
    ];
    let i = 0;
    for (const [name, gates, limits, workers] of cases) {
      const tenant = `bench-${i++}`;
      await put(a.url, tenant, limits);
      await run(gates, tenant, 2_000, workers); // warm up: limits read, first lease and chunks
      const counts = [countCalls(a.service), countCalls(b)];
      const result = await best(3, () => run(gates, tenant, N, workers));
      const reserve = counts[0].reserve + counts[1].reserve;
      const lease = counts[0].lease + counts[1].lease;
      lines.push(
        `${name}: ${result.perSecond.toLocaleString('en')}/s (${Math.round(result.nanosPerCall)} ns), ` +
          `${result.waitedPercent.toFixed(2)} % waited, ${((1000 * reserve) / (3 * N)).toFixed(2)} reservations ` +
          `and ${((1000 * lease) / (3 * N)).toFixed(3)} lease writes per 1,000`,
      );
    }
    for (const workers of [1, 100]) {
      const baseline = await best(3, () => run([NO_GATE], 'x', N, workers));
      lines.push(
        `no gate, ${workers} loop(s): ${baseline.perSecond.toLocaleString('en')}/s (${Math.round(baseline.nanosPerCall)} ns)`,
      );
    }
    console.log(lines.join('\n'));
  } finally {
    await b?.close();
    await a?.stop();
  }
}
