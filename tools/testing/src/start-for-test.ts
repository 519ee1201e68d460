import { RunningService, ServiceDefinition, startService, StartServiceOptions } from '@arbiter/platform';
import { createTestDatabase, testCacheConnectionString, TestDatabase } from './test-database';

export interface ServiceUnderTest {
  service: RunningService;
  url: string;
  database: TestDatabase;
  stop(): Promise<void>;
}

/**
 * Starts a service as its API tests need it: Testing environment, a fresh database (PGlite, or a new
 * PostgreSQL database with TEST_DATABASE_URL), NATS with TEST_NATS_URL, an ephemeral port, and no
 * environment variables from the developer's shell.
 */
export async function startServiceForTest(
  definition: ServiceDefinition,
  connectionStringKey: string,
  options: StartServiceOptions = {},
): Promise<ServiceUnderTest> {
  const database = await createTestDatabase();
  try {
    const service = await startService(definition, {
      environment: 'Testing',
      env: {},
      port: 0,
      host: '127.0.0.1',
      ...options,
      overrides: {
        [connectionStringKey]: database.url,
        'ConnectionStrings:Cache': testCacheConnectionString(),
        ...options.overrides,
      },
    });
    return {
      service,
      url: service.url,
      database,
      stop: async () => {
        await service.close();
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
