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
