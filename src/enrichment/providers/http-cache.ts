import CachePolicy from 'http-cache-semantics';
import type { CachedResponse } from './fetch-state';

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

/**
 * Whether a stored response is reused without asking the server: it was fetched or confirmed
 * within `maxAgeS` (FETCH_MAX_AGE_S, the service's freshness for research pages);
 * an older one is revalidated with the headers of `policy.revalidationHeaders`.
 */
export function reusable(cached: CachedResponse, maxAgeS: number, now = Date.now()): boolean {
  return now - cached.validated_at.getTime() <= maxAgeS * 1000;
}
