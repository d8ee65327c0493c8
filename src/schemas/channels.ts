import { Type } from '@sinclair/typebox';
import { CHANNEL_IDS, FEED_FORMATS, ISSUE_CODES } from '../channels';
import { Nullable, StringEnum } from './common';

/** Ajv schemas of the channel routes (docs/channels.md). */

const attribute = Type.Object({
  name: Type.String(),
  required: StringEnum(['always', 'conditional', 'optional']),
  condition: Type.Optional(Type.String({ description: 'When a conditional attribute is needed' })),
  description: Type.String(),
});

/** One channel as listed. */
const channel = Type.Object({
  id: StringEnum(CHANNEL_IDS),
  name: Type.String(),
  formats: Type.Array(StringEnum(FEED_FORMATS)),
  attributes: Type.Array(attribute),
});

/** `GET /public/channels` response. */
export const listChannelsResponse = Type.Object({ channels: Type.Array(channel) });

/** `GET …/channel-readiness` query: the channel (422 for an unknown one). */
export const channelReadinessQuery = Type.Object({ channel: StringEnum(CHANNEL_IDS, { description: 'The channel id (GET /public/channels)' }) });

/** `GET …/channel-readiness` response. */
export const channelReadinessResponse = Type.Object({
  channel: StringEnum(CHANNEL_IDS),
  total: Type.Integer({ description: 'Items that would be rows of the feed: variants, and products without variants' }),
  ready: Type.Integer({ description: 'Of those, items no rule finds an error in' }),
  blocked: Type.Record(Type.String(), Type.Integer(), {
    description: `Items with an error of each code (${ISSUE_CODES.join(', ')}); an item counts once per code`,
  }),
  by_attribute: Type.Record(Type.String(), Type.Integer(), { description: 'Items each needed attribute has no value in' }),
  mapping_suggested: Type.Boolean({ description: "True when the items were checked with the proposed mapping (no feed's own)" }),
  mapping_source: StringEnum(['feed', 'proposed'], {
    description: "feed: the mapping and currency of the catalog's most recently updated feed for the channel; proposed: the mapping proposed from the schema",
  }),
  feed_id: Nullable(Type.String({ description: 'The feed whose mapping was used (null with the proposed mapping)' })),
  mapping: Type.Record(Type.String(), Type.Union([Type.String(), Type.Object({ template: Type.String() }), Type.Object({ value: Type.String() })]), {
    description: 'Channel attribute → catalog field, {template} or {value}: the mapping the items were checked with',
  }),
});

/** `POST …/channel-readiness/fill-gaps` body (docs/channels.md, "Fill the gaps for a channel"). */
export const channelGapsBody = Type.Object(
  {
    channel: StringEnum(CHANNEL_IDS, { description: 'The channel id (GET /public/channels)' }),
    attributes: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
        minItems: 1,
        maxItems: 100,
        description: "Only these channel attributes (each one of the channel's); default every attribute some item misses",
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'The most items of the job (the first in id order); at most 100,000' })),
  },
  { additionalProperties: false },
);

/** The 202 answer of `POST …/channel-readiness/fill-gaps`: the job started, what it fills and what it cannot. */
export const channelGapsResponse = Type.Object({
  job_id: Type.String({ description: 'The enrichment job (= its review activity): poll GET /public/enrich/{job_id}' }),
  status: StringEnum(['running', 'completed', 'failed']),
  channel: StringEnum(CHANNEL_IDS),
  mapping_source: StringEnum(['feed', 'proposed'], { description: "The mapping attributes were translated with, as readiness's" }),
  feed_id: Nullable(Type.String()),
  fields: Type.Array(Type.String(), { description: 'The catalog fields the job enriches (its output schema)' }),
  items: Type.Integer({ description: 'Items the job enriches' }),
  matching: Type.Integer({ description: 'Items missing (or blocked by) a fillable attribute, before limit' }),
  attributes: Type.Array(
    Type.Object({ attribute: Type.String(), field: Type.String(), items: Type.Integer({ description: 'Items missing it or blocked by it' }) }),
    { description: 'The attributes filled, each with the catalog field it maps from' },
  ),
  not_fillable: Type.Array(Type.Object({ attribute: Type.String(), reason: Type.String(), items: Type.Integer() }), {
    description: 'Missing (or asked) attributes the job cannot fill, with why: not mapped, a template, a constant, a derived value, or no item misses it',
  }),
  review_url: Type.String({ description: 'The review page of the job: {PUBLIC_URL}/dashboard/catalogs/{catalog_id}/activities/{job_id}' }),
});
