import { CHANNELS } from '../channels';
import type { ResolvedAppDeps } from '../deps';
import { channelReadinessQuery, channelReadinessResponse, listChannelsResponse } from '../schemas/channels';
import { catalogParams } from '../schemas/items';
import { channelReadiness } from '../services/channels/readiness';
import { defineRoute, RouteDef } from './registry';

/**
 * Channels (docs/channels.md): the channels a catalog can be published to, with the attributes
 * each one reads, and a catalog's readiness for one of them.
 */
export function channelRoutes(deps: ResolvedAppDeps): RouteDef[] {
  const tags = ['channels'];
  return [
    defineRoute({
      method: 'get',
      path: '/public/channels',
      tags,
      summary: 'The channels (Google Merchant Center, Meta catalog, schema.org), their formats and attributes',
      response: listChannelsResponse,
      handler: async () => ({ channels: CHANNELS }),
    }),
    defineRoute({
      method: 'get',
      path: '/public/catalogs/:catalog_id/channel-readiness',
      tags,
      summary:
        "The catalog's readiness for a channel: items ready, items blocked per issue code, items missing each attribute (one scan of the items), under the mapping of the catalog's feed for the channel if it has one",
      params: catalogParams,
      query: channelReadinessQuery,
      response: channelReadinessResponse,
      handler: async ({ scope, params, query }) => {
        const r = await channelReadiness(deps, scope, params.catalog_id, query.channel);
        return {
          channel: r.channel,
          total: r.total,
          ready: r.ready,
          blocked: r.blocked,
          by_attribute: r.by_attribute,
          mapping_suggested: r.mapping_suggested,
          mapping_source: r.mapping_source,
          feed_id: r.feed_id,
          mapping: r.mapping,
        };
      },
    }),
  ];
}
