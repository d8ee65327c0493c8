import type { Knex } from 'knex';
import { channelById, gtinIssue, mappingOf, proposeMapping, type ChannelIssue, type ChannelMapping } from '../../channels';
import type { CatalogSchema } from '../../models/catalog-schema';
import { schemaFieldsOf } from './catalog-context';

/**
 * Which catalog field holds an item's GTIN, and whether a value of it is usable
 * (docs/console.md "GTIN flags"). The field is what the channels would read the `gtin` attribute
 * from: the mapping of the catalog's most recently updated feed that maps `gtin` to a field, else
 * the mapping proposal's (docs/channels.md "Mapping proposal": `gtin`, `ean`, `upc`, `barcode`, …).
 * The check is the channels' own GTIN rule (src/channels/rules.ts `gtinIssue`).
 */

/** The channel whose proposal names the GTIN field when no feed does (its attribute names are shared by all channels). */
const PROPOSAL_CHANNEL = 'google_merchant_center';

/** The top-level schema field a mapping's `gtin` source names, or null (a template, a value, a derived `$` name, a field not in the schema). */
function gtinFieldOfMapping(mapping: ChannelMapping, fields: Set<string>): string | null {
  const source = mapping.gtin;
  if (typeof source !== 'string' || source.startsWith('$')) return null;
  const field = source.replace(/\[[^\]]*\]$/, '');
  return fields.has(field) ? field : null;
}

/**
 * The catalog field holding the GTIN: the `gtin` field of the catalog's live feeds' mappings
 * (most recently updated first), else the mapping proposal's for the catalog schema; null when
 * neither names one.
 */
export async function catalogGtinField(knex: Knex, catalogId: string, schema: CatalogSchema): Promise<string | null> {
  const fields = new Set(Object.keys(schema.schema_definition.properties ?? {}));
  const feeds = (await knex('feeds')
    .where({ catalog_id: catalogId, deleted: false })
    .orderBy([
      { column: 'updated_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .select('mapping')) as Array<{ mapping: ChannelMapping | string }>;
  for (const f of feeds) {
    const mapping = typeof f.mapping === 'string' ? (JSON.parse(f.mapping) as ChannelMapping) : f.mapping;
    const field = gtinFieldOfMapping(mapping, fields);
    if (field) return field;
  }
  const channel = channelById(PROPOSAL_CHANNEL);
  return channel ? gtinFieldOfMapping(mappingOf(proposeMapping(schemaFieldsOf(schema), channel)), fields) : null;
}

/**
 * The problem of one GTIN value (`invalid_gtin`: not digits, wrong length, all zeros, wrong GS1
 * check digit; `restricted_gtin`: a restricted-circulation, company-internal, coupon or
 * refund-receipt number), or null for a usable GTIN, an empty value or one that is not text or a number.
 */
export function gtinProblem(value: unknown): ChannelIssue | null {
  if (typeof value === 'number' && Number.isFinite(value)) return gtinIssue(String(value));
  return typeof value === 'string' ? gtinIssue(value) : null;
}
