import CachePolicy from 'http-cache-semantics';
import type { Knex } from 'knex';

/** A response kept in `fetch_cache` with its HTTP cache policy. */
export interface CachedResponse {
  url: string;
  final_url: string;
  status: number;
  content_type: string;
  response_headers: Array<[string, string]>;
  body: Buffer;
  policy: CachePolicy;
  /** When the stored bytes were fetched. */
  fetched_at: Date;
  /** When the stored copy was last confirmed (fetched or revalidated with a 304). */
  validated_at: Date;
}

/** Request and response heads as http-cache-semantics reads them. */
type Heads = { request: CachePolicy.Request; response: CachePolicy.Response };

/**
 * The cache policy of a response (RFC 9111 via http-cache-semantics), as a private cache: the
 * fetcher never sends credentials, and its cache serves the service only, so `private`
 * responses may be kept; `no-store` ones never are.
 */
export function cachePolicy(heads: Heads): CachePolicy {
  return new CachePolicy(heads.request, heads.response, { shared: false });
}

/** The stored response of `url`, when there is one. */
export async function loadCached(knex: Knex, url: string): Promise<CachedResponse | null> {
  const row = await knex('fetch_cache').where('url', url).first();
  if (!row) return null;
  return { ...row, body: Buffer.from(row.body), policy: CachePolicy.fromObject(row.policy) } as CachedResponse;
}

/**
 * Whether a stored response is reused without asking the server: it was fetched or confirmed
 * within `maxAgeS` (FETCH_MAX_AGE_S, the service's freshness for research pages);
 * an older one is revalidated with the headers of `policy.revalidationHeaders`.
 */
export function reusable(cached: CachedResponse, maxAgeS: number, now = Date.now()): boolean {
  return now - cached.validated_at.getTime() <= maxAgeS * 1000;
}

/**
 * Stores (or replaces) the response of `url` when its policy lets it be stored (`storable()`:
 * not `no-store`, a cacheable status and method); a response that may not be stored removes an
 * older copy.
 */
export async function storeCached(knex: Knex, entry: Omit<CachedResponse, 'validated_at'>): Promise<void> {
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
}

/** Records a 304 revalidation: the stored bytes stay, the policy (and confirmation time) move on. */
export async function markRevalidated(knex: Knex, url: string, policy: CachePolicy): Promise<void> {
  await knex('fetch_cache')
    .where('url', url)
    .update({ policy: JSON.stringify(policy.toObject()), validated_at: new Date() });
}
