import { fieldRole } from '../extract/roles';
import type { Speed } from '../types';

/** Research budget of a speed tier (docs/enrich-options.md "Speed: model and reasoning effort"). */
export interface SpeedBudget {
  /** Queries sent at most. */
  queries: number;
  /** Results requested per query. */
  results: number;
  /** Pages fetched and parsed at most. */
  pages: number;
}

/**
 * Budgets per tier: cheaper tiers read fewer pages (less recall when the item's page ranks
 * low), deeper tiers send more query variants and read more candidates. `slow` = `deep`.
 */
export const SPEED_BUDGETS: Record<Speed, SpeedBudget> = {
  cheap: { queries: 1, results: 5, pages: 2 },
  fast: { queries: 2, results: 10, pages: 3 },
  medium: { queries: 3, results: 10, pages: 5 },
  deep: { queries: 4, results: 10, pages: 8 },
  slow: { queries: 4, results: 10, pages: 8 },
  ultra_slow: { queries: 6, results: 20, pages: 12 },
};

function str(v: unknown): string | undefined {
  if (typeof v === 'string' && v.trim()) return v.trim();
  if (typeof v === 'number') return String(v);
  return undefined;
}

/** The key of the item's name: the first of `name`, `title`, `product_name`, `product_title`, `productName` with a value. */
export function itemNameKey(item: Record<string, unknown>): string | undefined {
  return ['name', 'title', 'product_name', 'product_title', 'productName'].find((key) => str(item[key]) !== undefined);
}

/** The item's name: the value of {@link itemNameKey}, trimmed (numbers as text). */
export function itemName(item: Record<string, unknown>): string | undefined {
  const key = itemNameKey(item);
  return key === undefined ? undefined : str(item[key]);
}

/** Item values per identifier role (keys recognised like output fields: `ean` → gtin, …). */
export function itemIdentifiers(item: Record<string, unknown>): { gtin: string[]; mpn: string[]; sku: string[]; brand?: string } {
  const out: { gtin: string[]; mpn: string[]; sku: string[]; brand?: string } = { gtin: [], mpn: [], sku: [] };
  for (const [key, value] of Object.entries(item)) {
    const v = str(value);
    if (!v) continue;
    const role = fieldRole({ name: key, type: 'string', description: '' });
    if (role === 'gtin' || role === 'mpn' || role === 'sku') out[role].push(v);
    if (role === 'brand' && !out.brand) out.brand = v;
  }
  return out;
}

/**
 * Search queries for an item, most specific first: GTIN, MPN (with brand), SKU, then the
 * name (with the brand when the name lacks it), then the bare name. Duplicates are dropped;
 * the list is cut to the tier's query budget.
 */
export function planQueries(item: Record<string, unknown>, speed: Speed): string[] {
  const ids = itemIdentifiers(item);
  const name = itemName(item);
  const queries: string[] = [];
  queries.push(...ids.gtin);
  queries.push(...ids.mpn.map((m) => (ids.brand ? `${ids.brand} ${m}` : m)));
  queries.push(...ids.sku);
  if (name) {
    const withBrand = ids.brand && !name.toLowerCase().includes(ids.brand.toLowerCase()) ? `${ids.brand} ${name}` : name;
    queries.push(withBrand, name);
  }
  return [...new Set(queries)].slice(0, SPEED_BUDGETS[speed].queries);
}
