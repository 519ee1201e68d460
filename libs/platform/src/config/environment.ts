/** Hosting environments. `Development` and `Testing` relax the production-only startup rules. */
export type EnvironmentName = 'Development' | 'Testing' | 'Staging' | 'Production';

const aliases: Record<string, EnvironmentName> = {
  development: 'Development',
  dev: 'Development',
  testing: 'Testing',
  test: 'Testing',
  staging: 'Staging',
  production: 'Production',
  prod: 'Production',
};

/**
 * The environment comes from `ARBITER_ENVIRONMENT`, else `NODE_ENV` (Node's convention: unset means
 * development). Unknown names are refused rather than silently treated as production.
 */
export function resolveEnvironment(env: NodeJS.ProcessEnv = process.env): EnvironmentName {
  const raw = (env.ARBITER_ENVIRONMENT ?? env.NODE_ENV ?? 'development').trim().toLowerCase();
  const name = aliases[raw];
  if (!name) {
    throw new Error(
      `Unknown environment '${raw}' (ARBITER_ENVIRONMENT / NODE_ENV): use Development, Testing, Staging or Production`,
    );
  }
  return name;
}

export function isDevelopmentOrTesting(name: EnvironmentName): boolean {
  return name === 'Development' || name === 'Testing';
}
