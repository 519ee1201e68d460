import { DynamicModule, Global, Inject, Injectable, Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ConfigurationError } from '../config/config-binding';
import { Configuration } from '../config/configuration';
import { parseConnectionString } from './connection-string';
import { Database } from './database';
import { DatabaseOptions } from './database.settings';
import { DEFAULT_APPLICATION_ROLE } from './tenant-isolation';
import { UnitOfWork } from './unit-of-work';

/** Closes the pool and the embedded server after the HTTP server has drained. */
@Injectable()
class DatabaseLifecycle implements OnApplicationShutdown {
  constructor(@Inject(Database) private readonly database: Database) {}
  async onApplicationShutdown(): Promise<void> {
    await this.database.stop();
  }
}

@Global()
@Module({})
export class DatabaseModule {
  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: Database,
          inject: [Configuration],
          useFactory: async (configuration: Configuration) => {
            const value = configuration.get(options.connectionStringKey)?.trim();
            if (!value) {
              throw new ConfigurationError(`${options.connectionStringKey} is required and is empty`, [
                options.connectionStringKey,
              ]);
            }
            return Database.start({
              name: options.connectionStringKey,
              target: parseConnectionString(value, options.connectionStringKey),
              entities: options.entities,
              migrations: options.migrations,
              applicationRole:
                options.applicationRole ??
                configuration.get('Database:ApplicationRole') ??
                DEFAULT_APPLICATION_ROLE,
              poolSize: options.poolSize ?? Number(configuration.get('Database:PoolSize') ?? 10),
              embeddedExtensions: options.embeddedExtensions,
            });
          },
        },
        { provide: DataSource, inject: [Database], useFactory: (db: Database) => db.dataSource },
        UnitOfWork,
        DatabaseLifecycle,
      ],
      exports: [Database, DataSource, UnitOfWork],
    };
  }
}
