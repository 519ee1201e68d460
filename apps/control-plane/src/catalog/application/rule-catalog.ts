import { Inject, Injectable } from '@nestjs/common';
import { createBuiltInRuleLibrary } from '@arbiter/rule-engine';
import { InMemoryRuleRegistry } from '../../rulesets';
import { RuleCatalogSettings } from '../catalog.settings';
import { CatalogFilter, groupCatalog, RuleCatalogGroup, RuleCatalogItem } from '../domain/catalog-item';

export interface CatalogSource {
  sourceKey: string;
  /** `built-in`, or the manifest file it was read from. */
  origin: string;
  generatedAt: string;
  rules: number;
}

/**
 * The rule catalog: what the manifests say. Sources, in order: the built-in library's manifest
 * (`RuleCatalog:IncludeBuiltInRules`), then every manifest of `RuleCatalog:ManifestPaths` (a later
 * manifest may redefine a built-in code). Every code is registered in the rule registry, so code-based
 * rule sets may name it; the built-in rules are registered with their implementations.
 */
@Injectable()
export class RuleCatalog {
  private readonly items = new Map<string, RuleCatalogItem>();
  private readonly loaded: CatalogSource[] = [];

  constructor(
    @Inject(RuleCatalogSettings) settings: RuleCatalogSettings,
    @Inject(InMemoryRuleRegistry) registry: InMemoryRuleRegistry,
  ) {
    if (settings.includeBuiltInRules) registry.registerLibrary(createBuiltInRuleLibrary());
    for (const { manifest, origin } of settings.sources().manifests) {
      for (const rule of manifest.rules)
        this.items.set(rule.code, { ...rule, sourceKey: manifest.sourceKey });
      this.loaded.push({
        sourceKey: manifest.sourceKey,
        origin,
        generatedAt: manifest.generatedAt,
        rules: manifest.rules.length,
      });
    }
    registry.register(
      ...[...this.items.values()].map(({ code, displayName, category, tags }) => ({
        code,
        displayName,
        category,
        tags,
      })),
    );
  }

  groups(filter: CatalogFilter): RuleCatalogGroup[] {
    return groupCatalog(this.items.values(), filter);
  }

  /** An item by code (hidden items included). */
  find(code: string): RuleCatalogItem | undefined {
    return this.items.get(code);
  }

  sources(): CatalogSource[] {
    return [...this.loaded];
  }
}
