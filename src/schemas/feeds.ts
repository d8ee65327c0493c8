/**
 * JSON Schemas of the feed routes (docs/feeds.md): a feed's settings, its runs, their issues.
 * Channel and format are checked against the channel definitions by the service (422 with the
 * channel's formats), so they are plain strings here.
 */
import { Type } from '@sinclair/typebox';
import { AnyObject, Nullable, POSITION_MAX, StringEnum, withDefault } from './common';

const DateTime = Type.String({ format: 'date-time' });

/** Where a channel attribute's value comes from: a field name, a template or a fixed value. */
const MappingSource = Type.Union([
  Type.String({ minLength: 1, maxLength: 200, description: 'A catalog field name; `images[0]` the first element of an array field, `images[1:]` the rest' }),
  Type.Object(
    { template: Type.String({ minLength: 1, maxLength: 1000, description: 'Text with `{field}` placeholders, e.g. "{brand} {name}"' }) },
    { additionalProperties: false },
  ),
  Type.Object({ value: Type.String({ maxLength: 1000, description: 'A fixed value, e.g. "new"' }) }, { additionalProperties: false }),
]);

/** A feed's mapping: channel attribute → source. */
const Mapping = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), MappingSource, {
  description: 'Channel attribute → catalog field, `{template}` or `{value}`',
  maxProperties: 100,
});

/** Which items a feed publishes: the items search filters. */
const Filter = Type.Object(
  {
    search: Type.Optional(Type.String({ maxLength: 500, description: 'Word search over the items, as `GET …/items?search=`' })),
    entity_type: Type.Optional(StringEnum(['product', 'variant'] as const)),
  },
  { additionalProperties: false },
);

const Cron = Type.String({ minLength: 1, maxLength: 100, description: 'Cron expression in UTC (5 fields, or @hourly/@daily/@weekly/@monthly/@yearly)' });

/** `POST /public/catalogs/{catalog_id}/feeds`. */
export const createFeedBody = Type.Object(
  {
    channel: Type.String({ minLength: 1, maxLength: 64, description: 'A channel id of `GET /api/public/channels`' }),
    format: Type.String({ minLength: 1, maxLength: 16, description: "One of the channel's formats (tsv, xml, csv, jsonl)" }),
    target_country: Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2' }),
    language: Type.String({ pattern: '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$', description: 'BCP 47 language tag' }),
    currency: Type.Optional(Nullable(Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217, appended to prices that carry none' }))),
    mapping: Type.Optional(Mapping),
    filter: Type.Optional(Filter),
    schedule: Type.Optional(Nullable(Cron)),
  },
  { additionalProperties: false },
);

/** `PATCH /public/feeds/{feed_id}`: any of the settings. */
export const updateFeedBody = Type.Partial(createFeedBody, { additionalProperties: false, minProperties: 1 });

/** `{catalog_id}`. */
export const feedCatalogParams = Type.Object({ catalog_id: Type.String() });
/** `{feed_id}`. */
export const feedParams = Type.Object({ feed_id: Type.String() });
/** `{feed_id}` and `{run_id}`. */
export const feedRunParams = Type.Object({ feed_id: Type.String(), run_id: Type.String() });
/** `{token}` of the public URL. */
export const publicFeedParams = Type.Object({ token: Type.String({ maxLength: 100 }) });

/** One feed as the API shows it. */
export const feedResponse = Type.Object({
  id: Type.String(),
  catalog_id: Type.String(),
  channel: Type.String(),
  format: Type.String(),
  target_country: Type.String(),
  language: Type.String(),
  currency: Nullable(Type.String()),
  mapping: AnyObject({ description: 'Channel attribute → source' }),
  mapping_suggested: Type.Boolean({ description: 'true while the mapping is the one the service proposed' }),
  mapping_reasons: Type.Optional(AnyObject({ description: 'For a proposed mapping: attribute → why this source was proposed' })),
  filter: AnyObject(),
  schedule: Nullable(Type.String()),
  public_url: Type.String({ description: "Serves the latest completed run's file without an API key; changes on rotate-token" }),
  notices: Type.Optional(Type.Array(Type.String())),
  created_at: DateTime,
  updated_at: DateTime,
});

/** `GET /public/catalogs/{catalog_id}/feeds`. */
export const feedListResponse = Type.Object({ feeds: Type.Array(feedResponse) });

/** `POST /public/feeds/{feed_id}/runs`. */
export const startRunBody = Type.Object({ delta: Type.Optional(withDefault(Type.Boolean(), false)) }, { additionalProperties: false });

/** The 202 answer of a run start. */
export const startRunResponse = Type.Object({ run_id: Type.String(), status: Type.String() });

/** One run as the API shows it. */
export const feedRunResponse = Type.Object({
  id: Type.String(),
  feed_id: Type.String(),
  status: StringEnum(['queued', 'running', 'completed', 'failed', 'cancelled'] as const),
  delta: Type.Boolean(),
  progress: Type.Object({ items_read: Type.Integer(), total: Type.Integer() }),
  counts: Type.Object({
    items: Type.Integer({ description: 'Items read' }),
    exported: Type.Integer({
      description: 'Items written to the file (a delta: rows changed); schema_org writes them one line per product, a ProductGroup holding its variants',
    }),
    excluded: Type.Integer({ description: 'Items left out for an error' }),
    warnings: Type.Integer({ description: 'Exported items with at least one warning' }),
  }),
  file_url: Nullable(Type.String()),
  issues_url: Type.String(),
  error: Nullable(Type.String()),
  started_at: Nullable(DateTime),
  completed_at: Nullable(DateTime),
});

/** `GET …/runs/{run_id}/issues` query. */
export const issuesQuery = Type.Object({
  page: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: POSITION_MAX }), 1)),
  page_size: Type.Optional(withDefault(Type.Integer({ minimum: 1, maximum: 1000 }), 50)),
  severity: Type.Optional(StringEnum(['error', 'warning'] as const)),
  code: Type.Optional(Type.String({ maxLength: 64 })),
  attribute: Type.Optional(Type.String({ maxLength: 100 })),
});

/** A page of a run's issues. */
export const issuesResponse = Type.Object({
  items: Type.Array(
    Type.Object({
      item_id: Type.String(),
      sku: Nullable(Type.String()),
      attribute: Type.String(),
      severity: StringEnum(['error', 'warning'] as const),
      code: Type.String(),
      message: Type.String(),
      value: Type.Optional(Type.String()),
    }),
  ),
  total: Type.Integer(),
  page: Type.Integer(),
  page_size: Type.Integer(),
  total_pages: Type.Integer(),
});
