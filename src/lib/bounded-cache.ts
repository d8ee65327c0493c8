/**
 * The one bounded in-memory cache of the service: a thin wrapper over `lru-cache`
 * (https://github.com/isaacs/node-lru-cache) so every per-process cache (src/services/service-caches.ts,
 * src/enrichment/learned-text.ts) has the same eviction rule: past `max` entries the least
 * recently used (read with `get` or written with `set`) goes first, and with `ttlMs` an entry
 * older than that reads as absent. Keys are strings; values are anything but null/undefined.
 */
import { LRUCache } from 'lru-cache';

/** A bounded string-keyed cache (least recently used evicted past its `max`). */
export type BoundedCache<V extends NonNullable<unknown>> = LRUCache<string, V>;

/**
 * A new, empty bounded cache.
 *
 * @param max most entries kept (a positive integer); the least recently used goes first
 * @param opts.ttlMs when set, entries older than this many milliseconds (since their last `set`)
 *   read as absent and are dropped lazily
 */
export function boundedCache<V extends NonNullable<unknown>>(max: number, opts: { ttlMs?: number } = {}): BoundedCache<V> {
  return new LRUCache<string, V>(opts.ttlMs === undefined ? { max } : { max, ttl: opts.ttlMs, ttlAutopurge: false });
}

/**
 * Loads a value once per key: returns the cached promise for `key` (marking it recently used),
 * else starts `load()`, caches its promise and returns it. A failed load is forgotten (only if
 * it is still the cached one), so the next call tries again; the rejection reaches the caller.
 */
export function cachedLoad<V>(cache: BoundedCache<Promise<V>>, key: string, load: () => Promise<V>): Promise<V> {
  const hit = cache.get(key);
  if (hit) return hit;
  const loading = load();
  cache.set(key, loading);
  loading.catch(() => {
    if (cache.peek(key) === loading) cache.delete(key);
  });
  return loading;
}
