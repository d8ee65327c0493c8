import { ValidationError } from '../lib/errors';
import type { Feed, FeedMapping, FeedMappingSource } from '../models/feed';

/**
 * The console's feed forms (docs/console.md "Feeds") as values and request bodies: what the
 * "new feed" and "edit feed" forms hold, read back from a posted form, and turned into the body
 * the feed API takes (`POST /public/catalogs/{id}/feeds`, `PATCH /public/feeds/{id}`). The
 * bodies are then checked by the API's own schema and the feed service, never here.
 */

/** How a mapping row gives its attribute's value: a catalog field, a `{field}` template or a fixed value (docs/feeds.md "Feeds"). */
export type MappingKind = 'field' | 'template' | 'value';

/** One row of the mapping editor: channel attribute, kind of source, the source's text. */
export interface MappingRow {
  attribute: string;
  kind: MappingKind;
  source: string;
}

/** What a feed form shows (as typed, so a refused form shows the user's input again). */
export interface FeedFormValues {
  channel: string;
  format: string;
  target_country: string;
  language: string;
  currency: string;
  schedule: string;
  search: string;
  /** `product`, `variant` or '' (both). */
  entity_type: string;
  /** The edit form's mapping rows (empty in the new form: the service proposes the mapping). */
  mapping: MappingRow[];
}

/** Empty mapping rows the edit form adds for new attributes. */
export const NEW_MAPPING_ROWS = 3;
/** Most mapping rows a form may post (the API takes at most 100 attributes). */
const MAX_MAPPING_ROWS = 120;

/** The values of the new-feed form before anything was typed. */
export function emptyFormValues(): FeedFormValues {
  return { channel: '', format: '', target_country: '', language: '', currency: '', schedule: '', search: '', entity_type: '', mapping: [] };
}

function rowOf(attribute: string, source: FeedMappingSource): MappingRow {
  if (typeof source === 'string') return { attribute, kind: 'field', source };
  if ('template' in source) return { attribute, kind: 'template', source: source.template };
  return { attribute, kind: 'value', source: source.value };
}

/** A mapping's entries in the channel's attribute order (`order`), attributes the channel does not list last. */
export function orderedMapping(mapping: FeedMapping, order: string[]): Array<[string, FeedMappingSource]> {
  const rank = (a: string) => (order.includes(a) ? order.indexOf(a) : order.length);
  return Object.entries(mapping).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}

/** The edit form's values of a feed: its settings and its mapping, one row per attribute in the channel's attribute `order`. */
export function formValuesOf(feed: Feed, order: string[]): FeedFormValues {
  return {
    channel: feed.channel,
    format: feed.format,
    target_country: feed.target_country,
    language: feed.language,
    currency: feed.currency ?? '',
    schedule: feed.schedule ?? '',
    search: feed.filter?.search ?? '',
    entity_type: feed.filter?.entity_type ?? '',
    mapping: orderedMapping(feed.mapping, order).map(([a, s]) => rowOf(a, s)),
  };
}

/** The values of a posted feed form; `withMapping`: read the mapping rows (`m.<i>.attribute|kind|source`). */
export function formValuesFrom(form: URLSearchParams, withMapping: boolean): FeedFormValues {
  const text = (name: string) => (form.get(name) ?? '').trim();
  const mapping: MappingRow[] = [];
  if (withMapping) {
    for (let i = 0; i < MAX_MAPPING_ROWS && form.has(`m.${i}.attribute`); i++) {
      const kind = form.get(`m.${i}.kind`);
      const row: MappingRow = {
        attribute: text(`m.${i}.attribute`),
        kind: kind === 'template' || kind === 'value' ? kind : 'field',
        source: kind === 'value' ? (form.get(`m.${i}.source`) ?? '') : text(`m.${i}.source`),
      };
      // Rows left empty are the form's spare rows: a refused form shows its own spares again.
      if (row.attribute || row.source) mapping.push(row);
    }
  }
  return {
    channel: text('channel'),
    format: text('format'),
    target_country: text('target_country'),
    language: text('language'),
    currency: text('currency'),
    schedule: text('schedule'),
    search: text('search'),
    entity_type: text('entity_type'),
    mapping,
  };
}

/** The mapping of the rows: rows without an attribute or a source are left out (clearing a row's source removes the attribute). */
function mappingOf(rows: MappingRow[]): FeedMapping {
  const out: FeedMapping = {};
  for (const r of rows) {
    if (!r.attribute || r.source === '') continue;
    out[r.attribute] = r.kind === 'field' ? r.source : r.kind === 'template' ? { template: r.source } : { value: r.source };
  }
  return out;
}

/** The feed filter of the values: `{search?, entity_type?}`. */
function filterOf(v: FeedFormValues): Record<string, string> {
  return { ...(v.search ? { search: v.search } : {}), ...(v.entity_type ? { entity_type: v.entity_type } : {}) };
}

/** Key-order-free JSON of a value, to tell whether a setting changed. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
    .join(',')}}`;
}

/** The create body of the new-feed form: optional settings left out when empty (no mapping: the service proposes one). */
export function createBodyOf(v: FeedFormValues): Record<string, unknown> {
  const filter = filterOf(v);
  return {
    channel: v.channel,
    format: v.format,
    target_country: v.target_country,
    language: v.language,
    ...(v.currency ? { currency: v.currency } : {}),
    ...(v.schedule ? { schedule: v.schedule } : {}),
    ...(Object.keys(filter).length ? { filter } : {}),
  };
}

/**
 * The PATCH body of the edit form: only the settings that differ from the feed's (so an unchanged
 * proposed mapping stays a proposal); an emptied currency or schedule is null (cleared).
 * @throws ValidationError (422) when nothing changed
 */
export function patchOf(feed: Feed, v: FeedFormValues): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  if (v.channel !== feed.channel) patch.channel = v.channel;
  if (v.format !== feed.format) patch.format = v.format;
  if (v.target_country.toUpperCase() !== feed.target_country) patch.target_country = v.target_country;
  if (v.language !== feed.language) patch.language = v.language;
  if ((v.currency || null) !== feed.currency) patch.currency = v.currency || null;
  if ((v.schedule || null) !== feed.schedule) patch.schedule = v.schedule || null;
  const filter = filterOf(v);
  if (canonical(filter) !== canonical(feed.filter ?? {})) patch.filter = filter;
  const mapping = mappingOf(v.mapping);
  if (canonical(mapping) !== canonical(feed.mapping)) patch.mapping = mapping;
  if (!Object.keys(patch).length) throw ValidationError.at(['body'], 'Nothing changed: the form holds the feed’s current settings');
  return patch;
}
