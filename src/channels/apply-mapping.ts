import type { ApplyContext, ChannelMapping, FeedRow, MappingSource } from './types';

/**
 * Turning a catalog item into a channel's flat row through a mapping (docs/channels.md,
 * "Mapping"). Pure: the caller passes the item's data, its product's data for a variant, and
 * the derived values ({@link ApplyContext}).
 */

/** Attributes with several values (written as lists, see FeedRow). */
export const LIST_ATTRIBUTES: ReadonlySet<string> = new Set(['additional_image_link']);

/** Attributes whose values are prices ("<amount> <currency>"). */
const PRICE_ATTRIBUTES = new Set(['price', 'sale_price']);

/** A field reference `name`, `name[0]` (one element) or `name[1:]` (elements from 1 on). */
const FIELD_REF = /^(.+?)(?:\[(\d+)(:)?\])?$/;

/** A scalar as text: numbers and booleans as JSON writes them, objects as JSON, null/undefined as ''. */
function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v.trim();
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** The raw value of a field reference in the item, falling back to the product for a variant. */
function lookup(ref: string, item: Record<string, unknown>, parent: Record<string, unknown> | undefined, ctx: ApplyContext): unknown {
  const m = FIELD_REF.exec(ref);
  if (!m) return undefined;
  const [, name, index, slice] = m;
  let v: unknown;
  if (name === '$category_path' || name === '$google_product_category') {
    const cat = text(item.category_id ?? parent?.category_id);
    if (!cat) return undefined;
    v = name === '$category_path' ? ctx.categoryPath?.(cat)?.join(' > ') : (ctx.googleCategory?.(cat) ?? undefined);
  } else {
    v = Object.hasOwn(item, name) && !isEmpty(item[name]) ? item[name] : parent?.[name];
  }
  if (index === undefined) return v;
  const list = Array.isArray(v) ? v : v === undefined || v === null || v === '' ? [] : [v];
  return slice ? list.slice(Number(index)) : list[Number(index)];
}

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);
}

/** A template's text: each `{field}` replaced by the field's value ('' when empty), spaces collapsed. */
function fillTemplate(template: string, item: Record<string, unknown>, parent: Record<string, unknown> | undefined, ctx: ApplyContext): string {
  return template
    .replace(/\{([^{}]+)\}/g, (_, ref: string) => {
      const v = lookup(ref.trim(), item, parent, ctx);
      return Array.isArray(v) ? v.map(text).join(', ') : text(v);
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/** The value of one source for the item: text, or a list of texts for a list field. */
export function resolveSource(
  source: MappingSource,
  item: Record<string, unknown>,
  parent?: Record<string, unknown>,
  ctx: ApplyContext = {},
): string | string[] {
  if (typeof source !== 'string') return 'value' in source ? source.value : fillTemplate(source.template, item, parent, ctx);
  const v = lookup(source, item, parent, ctx);
  return Array.isArray(v) ? v.map(text).filter((s) => s !== '') : text(v);
}

/**
 * A price in the channels' form: a bare amount gets two decimals and the context's currency
 * ("12" → "12.00 EUR"); "EUR 12" becomes "12.00 EUR"; anything else is left for the rules to
 * report.
 */
export function formatPrice(value: string, currency?: string): string {
  const v = value.trim();
  const bare = /^\d+(?:\.\d+)?$/.exec(v);
  if (bare) return currency ? `${Number(v).toFixed(2)} ${currency.toUpperCase()}` : v;
  const before = /^([A-Za-z]{3})\s*(\d+(?:\.\d+)?)$/.exec(v);
  if (before) return `${Number(before[2]).toFixed(2)} ${before[1].toUpperCase()}`;
  const after = /^(\d+(?:\.\d+)?)\s*([A-Za-z]{3})$/.exec(v);
  if (after) return `${Number(after[1]).toFixed(2)} ${after[2].toUpperCase()}`;
  return v;
}

/**
 * The flat row of an item under a mapping: every mapped attribute with its value (empty values
 * left out, so the rules see them as missing). For a variant (`parent` given), fields the
 * variant leaves empty are taken from its product and `item_group_id` is the product's id (its
 * `ctx.groupIdField`, else its `id` under the same mapping), unless the mapping names its own source. Prices are normalised by
 * {@link formatPrice} with `ctx.currency`. List attributes ({@link LIST_ATTRIBUTES}) stay lists;
 * other attributes given a list take its first element.
 */
export function applyMapping(mapping: ChannelMapping, item: Record<string, unknown>, parent?: Record<string, unknown>, ctx: ApplyContext = {}): FeedRow {
  const row: FeedRow = {};
  for (const [attribute, source] of Object.entries(mapping)) {
    let v = resolveSource(source, item, parent, ctx);
    if (Array.isArray(v) && !LIST_ATTRIBUTES.has(attribute)) v = v[0] ?? '';
    if (typeof v === 'string' && LIST_ATTRIBUTES.has(attribute))
      v =
        v === ''
          ? []
          : v
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean);
    if (typeof v === 'string' && PRICE_ATTRIBUTES.has(attribute) && v !== '') v = formatPrice(v, ctx.currency);
    if (v === '' || (Array.isArray(v) && v.length === 0)) continue;
    row[attribute] = v;
  }
  if (parent && !Object.hasOwn(mapping, 'item_group_id')) {
    const own = ctx.groupIdField ? text(parent[ctx.groupIdField]) : '';
    const groupId = own !== '' ? own : mapping.id !== undefined ? resolveSource(mapping.id, parent, undefined, ctx) : '';
    const g = Array.isArray(groupId) ? (groupId[0] ?? '') : groupId;
    if (g !== '') row.item_group_id = g;
  }
  return row;
}
