import { IsIn, IsNotEmpty, IsString } from 'class-validator';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bindConfig, ConfigKey, ConfigurationError } from './config-binding';
import { Configuration, loadConfiguration } from './configuration';
import { resolveEnvironment } from './environment';

class SampleSettings {
  @ConfigKey('ConnectionStrings:SampleDb')
  @IsString()
  @IsNotEmpty()
  connectionString = '';

  @ConfigKey('Sample:Enabled')
  enabled: boolean = true;

  @ConfigKey('Sample:Retries')
  retries: number = 3;

  @ConfigKey('Sample:Features')
  features: string[] = [];

  @ConfigKey('Sample:Mode')
  @IsIn(['A', 'B'])
  mode = 'A';

  @ConfigKey('Sample:KeysByTenant')
  keysByTenant: Record<string, string> = {};
}

function dirWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), JSON.stringify(content));
  return dir;
}

describe('loadConfiguration', () => {
  it('layers default.json, the environment file and environment variables (__ for :)', () => {
    const dir = dirWith({
      'default.json': { ConnectionStrings: { SampleDb: 'postgres://a' }, Sample: { Retries: 1, Mode: 'A' } },
      'production.json': { Sample: { Retries: 5 } },
    });
    const config = loadConfiguration({
      configDir: dir,
      environment: 'Production',
      env: { Sample__Mode: 'B', ConnectionStrings__SampleDb: 'postgres://b' },
    });
    expect(config.get('Sample:Retries')).toBe('5');
    expect(config.get('sample:mode')).toBe('B');
    expect(config.get('ConnectionStrings:SampleDb')).toBe('postgres://b');
  });

  it('maps the documented execution-router environment aliases', () => {
    const config = loadConfiguration({
      environment: 'Development',
      env: { RULEENGINE_EXECUTIONROUTER_MODE: 'Shadow', RULEENGINE_EXECUTIONROUTER_CANDIDATEVERSION: '7' },
    });
    expect(config.get('RuleEngineOptions:ExecutionRouter:Mode')).toBe('Shadow');
    expect(config.get('RuleEngineOptions:ExecutionRouter:CandidateVersion')).toBe('7');
  });

  it('reads arrays from JSON, indexed env keys and comma lists', () => {
    const dir = dirWith({ 'default.json': { Sample: { Features: ['x', 'y'] } } });
    expect(
      loadConfiguration({ configDir: dir, environment: 'Testing', env: {} }).getArray('Sample:Features'),
    ).toEqual(['x', 'y']);
    const indexed = new Configuration([
      ['Sample:Features:1', 'b'],
      ['Sample:Features:0', 'a'],
    ]);
    expect(indexed.getArray('Sample:Features')).toEqual(['a', 'b']);
    expect(new Configuration([['Sample:Features', 'p, q']]).getArray('Sample:Features')).toEqual(['p', 'q']);
  });

  it('refuses an unreadable JSON file with its path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    writeFileSync(join(dir, 'default.json'), '{ nope');
    expect(() => loadConfiguration({ configDir: dir, environment: 'Testing', env: {} })).toThrow(
      /default\.json is not valid JSON/,
    );
  });
});

describe('bindConfig', () => {
  it('converts types and keeps defaults for absent keys', () => {
    const settings = bindConfig(
      SampleSettings,
      new Configuration([
        ['ConnectionStrings:SampleDb', 'pglite://memory'],
        ['Sample:Enabled', 'false'],
        ['Sample:Retries', '9'],
        ['Sample:KeysByTenant:acme', 'k1'],
      ]),
    );
    expect(settings).toMatchObject({ enabled: false, retries: 9, mode: 'A', keysByTenant: { acme: 'k1' } });
  });

  it('names the key of every invalid value', () => {
    const config = new Configuration([
      ['ConnectionStrings:SampleDb', ''],
      ['Sample:Enabled', 'perhaps'],
      ['Sample:Retries', 'many'],
      ['Sample:Mode', 'C'],
    ]);
    let error: ConfigurationError | undefined;
    try {
      bindConfig(SampleSettings, config);
    } catch (e) {
      error = e as ConfigurationError;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error!.keys).toEqual(
      expect.arrayContaining([
        'ConnectionStrings:SampleDb',
        'Sample:Enabled',
        'Sample:Retries',
        'Sample:Mode',
      ]),
    );
    expect(error!.message).toContain('Sample:Enabled must be true or false');
    expect(error!.message).toContain('ConnectionStrings:SampleDb');
  });
});

describe('resolveEnvironment', () => {
  it('defaults to Development and understands NODE_ENV spellings', () => {
    expect(resolveEnvironment({})).toBe('Development');
    expect(resolveEnvironment({ NODE_ENV: 'production' })).toBe('Production');
    expect(resolveEnvironment({ NODE_ENV: 'test' })).toBe('Testing');
    expect(resolveEnvironment({ ARBITER_ENVIRONMENT: 'Staging', NODE_ENV: 'test' })).toBe('Staging');
  });
  it('refuses unknown names', () => {
    expect(() => resolveEnvironment({ NODE_ENV: 'moon' })).toThrow(/Unknown environment/);
  });
});
