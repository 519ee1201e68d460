import { ConfigKey, StartupRules } from '@arbiter/platform';
import { IsArray, IsBoolean, IsString } from 'class-validator';
import { CatalogSources, loadCatalogSources } from './application/catalog-sources';

/** `RuleCatalog:*`: where the rule catalog and contract metadata come from. */
export class RuleCatalogSettings implements StartupRules {
  /** Serve the built-in sample library (`arbiter.builtin`: CREDIT_MIN, KYC_OK, AGE_CHECK, …). */
  @ConfigKey('RuleCatalog:IncludeBuiltInRules')
  @IsBoolean()
  includeBuiltInRules = true;

  /** Manifest files emitted by the rule library generator, or directories of them (every `*.json`). */
  @ConfigKey('RuleCatalog:ManifestPaths')
  @IsArray()
  @IsString({ each: true })
  manifestPaths: string[] = [];

  /** JSON file of static fallback contracts `{ contracts: [{ sourceType, sourceCode, request, response }] }`. */
  @ConfigKey('RuleCatalog:StaticContractsPath')
  @IsString()
  staticContractsPath = '';

  private loaded?: CatalogSources;

  /** The configured sources, read once: at startup, before anything else starts. */
  sources(): CatalogSources {
    return (this.loaded ??= loadCatalogSources(this));
  }

  assertStartupRules(): void {
    this.sources();
  }
}

/** Settings classes (`@ConfigKey`) of this module; registered in CONTROL_PLANE_SETTINGS. */
export const CATALOG_SETTINGS: (new () => object)[] = [RuleCatalogSettings];
