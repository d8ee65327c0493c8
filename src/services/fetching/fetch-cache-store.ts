import CachePolicy from 'http-cache-semantics';
import type { Knex } from 'knex';
import type { CachedResponse, HttpCacheStore } from '../../enrichment/providers/fetch-state';

/**
 * The engine's {@link HttpCacheStore} (src/enrichment/providers/fetch-state.ts) over `fetch_cache`
 * (migration 20261127080000_live_fetch): one row per requested URL, shared by every worker, with
 * its http-cache-semantics policy as JSON (docs/research.md, "HTTP caching").
 */
export function fetchCacheStore(knex: Knex): HttpCacheStore {
  return {
    async load(url) {
      const row = await knex('fetch_cache').where('url', url).first();
      if (!row) return null;
      return { ...row, body: Buffer.from(row.body), policy: CachePolicy.fromObject(row.policy) } as CachedResponse;
    },
    async store(entry) {
      if (!entry.policy.storable()) {
        await knex('fetch_cache').where('url', entry.url).delete();
        return;
      }
      const row = {
        url: entry.url,
        final_url: entry.final_url,
        status: entry.status,
        content_type: entry.content_type,
        response_headers: JSON.stringify(entry.response_headers),
        body: entry.body,
        policy: JSON.stringify(entry.policy.toObject()),
        fetched_at: entry.fetched_at,
        validated_at: new Date(),
      };
      await knex('fetch_cache').insert(row).onConflict('url').merge();
    },
    async markRevalidated(url, policy) {
      await knex('fetch_cache')
        .where('url', url)
        .update({ policy: JSON.stringify(policy.toObject()), validated_at: new Date() });
    },
  };
}
