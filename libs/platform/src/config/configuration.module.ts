import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { bindConfig } from './config-binding';
import { Configuration } from './configuration';
import { EnvironmentName } from './environment';

export const ENVIRONMENT = Symbol('arbiter:environment');

/** A settings class may check rules that span keys or depend on the environment. */
export interface StartupRules {
  assertStartupRules(environment: EnvironmentName): void;
}

function hasStartupRules(value: object): value is StartupRules {
  return typeof (value as Partial<StartupRules>).assertStartupRules === 'function';
}

/**
 * Binds and validates every settings class eagerly, so a bad key stops startup before Nest builds
 * anything, with a message naming the key. Settings instances are then injectable by class.
 */
export function bindSettings(
  configuration: Configuration,
  environment: EnvironmentName,
  settings: (new () => object)[],
): Map<new () => object, object> {
  const bound = new Map<new () => object, object>();
  for (const type of settings) {
    const instance = bindConfig(type, configuration);
    if (hasStartupRules(instance)) instance.assertStartupRules(environment);
    bound.set(type, instance);
  }
  return bound;
}

@Global()
@Module({})
export class ConfigurationModule {
  static forRoot(options: {
    configuration: Configuration;
    environment: EnvironmentName;
    settings: (new () => object)[];
  }): DynamicModule {
    const bound = bindSettings(options.configuration, options.environment, options.settings);
    const providers: Provider[] = [
      { provide: Configuration, useValue: options.configuration },
      { provide: ENVIRONMENT, useValue: options.environment },
      ...[...bound].map(([type, instance]) => ({ provide: type, useValue: instance })),
    ];
    return {
      module: ConfigurationModule,
      providers,
      exports: providers.map((p) => (p as { provide: unknown }).provide as never),
    };
  }
}
