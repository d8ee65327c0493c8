import { CHANNELS } from '../channels';
import type { ResolvedAppDeps } from '../deps';
import { presentChannelGaps } from '../presenters/channels';
import { channelGapsBody, channelGapsResponse, channelReadinessQuery, channelReadinessResponse, listChannelsResponse } from '../schemas/channels';
import { catalogParams } from '../schemas/items';
import { startChannelGaps } from '../services/channels/fill-gaps';
import { channelReadiness } from '../services/channels/readiness';
import { defineRoute, RouteDef } from './registry';

/**
 * Channels (docs/channels.md): the channels a catalog can be published to, with the attributes
 * each one reads, a catalog's readiness for one of them, and the enrichment job that fills the
 * attributes its items miss ("Fill the gaps for a channel").
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
    defineRoute({
      method: 'post',
      path: '/public/catalogs/:catalog_id/channel-readiness/fill-gaps',
      tags,
      summary:
        "Fill the gaps for a channel: an enrichment job (staged for review) of the items missing the channel's attributes, for the catalog fields those attributes map from; names the attributes it cannot fill and why",
      params: catalogParams,
      body: channelGapsBody,
      response: channelGapsResponse,
      status: 202,
      errors: {
        409: 'nothing to fill: every missing attribute maps from no plain field, or no item misses an asked attribute (the message names each and why)',
        503: 'the job could not be started (Temporal unreachable)',
      },
      // With an Idempotency-Key the job's id derives from it: a retry after a crash finds the job.
      handler: async ({ scope, params, body, idempotentId }) => {
        const { job, plan } = await startChannelGaps(
          deps,
          scope,
          params.catalog_id,
          body.channel,
          { attributes: body.attributes, limit: body.limit },
          idempotentId,
        );
        return presentChannelGaps(plan, job, deps.config.publicUrl);
      },
    }),
  ];
}
