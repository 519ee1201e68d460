import type { RuleContract } from '@arbiter/rule-engine';

/** A rule catalog item (spec 1) plus `category`, `hidden` and `description`. */
export interface RuleCatalogItem {
  code: string;
  displayName: string;
  category: string;
  tags: string[];
  hidden: boolean;
  description?: string;
  /** The manifest source that produced the item. */
  sourceKey: string;
  inputSchema: RuleContract;
  outputSchema: RuleContract;
}

export interface RuleCatalogGroup {
  category: string;
  items: RuleCatalogItem[];
}

export interface CatalogFilter {
  /** Exact category, case-insensitive. */
  category?: string;
  /** Substring of code, display name or a tag, case-insensitive. */
  search?: string;
  includeHidden?: boolean;
}

function matches(item: RuleCatalogItem, filter: CatalogFilter): boolean {
  if (item.hidden && !filter.includeHidden) return false;
  if (filter.category && item.category.toLowerCase() !== filter.category.trim().toLowerCase()) return false;
  const search = filter.search?.trim().toLowerCase();
  if (!search) return true;
  return [item.code, item.displayName, ...item.tags].some((text) => text.toLowerCase().includes(search));
}

const byText = (a: string, b: string) =>
  a.localeCompare(b, 'en', { sensitivity: 'base' }) || a.localeCompare(b);

/** The items that pass the filter, grouped by category; groups sorted by category, items by code. */
export function groupCatalog(items: Iterable<RuleCatalogItem>, filter: CatalogFilter): RuleCatalogGroup[] {
  const groups = new Map<string, RuleCatalogItem[]>();
  for (const item of items) {
    if (!matches(item, filter)) continue;
    const list = groups.get(item.category) ?? [];
    list.push(item);
    groups.set(item.category, list);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => byText(a, b))
    .map(([category, list]) => ({ category, items: list.sort((a, b) => byText(a.code, b.code)) }));
}
