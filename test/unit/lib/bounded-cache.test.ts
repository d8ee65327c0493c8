/**
 * The shared bounded cache (src/lib/bounded-cache.ts): least recently used evicted past `max`,
 * entries past `ttlMs` read as absent, and `cachedLoad` sharing one load per key and forgetting
 * a failed one.
 */
import { boundedCache, cachedLoad } from '../../../src/lib/bounded-cache';

describe('boundedCache', () => {
  it('keeps at most max entries, evicting the least recently used (a get counts as a use)', () => {
    const cache = boundedCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.has('a'), cache.has('b'), cache.has('c'), cache.size]).toEqual([true, false, true, 2]);
  });

  it('with ttlMs, an entry older than that reads as absent', async () => {
    const cache = boundedCache<true>(10, { ttlMs: 30 });
    cache.set('a', true);
    expect(cache.has('a')).toBe(true);
    await new Promise((r) => setTimeout(r, 80));
    expect(cache.has('a')).toBe(false);
  });
});

describe('cachedLoad', () => {
  it('starts one load per key and hands every caller the same promise', async () => {
    const cache = boundedCache<Promise<string>>(4);
    let loads = 0;
    const load = async () => `v${++loads}`;
    const first = cachedLoad(cache, 'k', load);
    expect(cachedLoad(cache, 'k', load)).toBe(first);
    expect(await first).toBe('v1');
    expect(loads).toBe(1);
  });

  it('forgets a failed load, so the next call loads again, and passes the rejection on', async () => {
    const cache = boundedCache<Promise<string>>(4);
    await expect(cachedLoad(cache, 'k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(cache.has('k')).toBe(false);
    await expect(cachedLoad(cache, 'k', async () => 'up')).resolves.toBe('up');
  });
});
