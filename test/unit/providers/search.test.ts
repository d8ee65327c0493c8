import { createEngine } from '../../../src/enrichment/engine';
import { createBraveSearch } from '../../../src/enrichment/providers/brave';
import { SearchError, withSiteOperators } from '../../../src/enrichment/providers/search-http';
import { createSearxngSearch } from '../../../src/enrichment/providers/searxng';
import type { Fetcher } from '../../../src/enrichment/research/types';
import { startServer } from './fixtures';

const requests: Array<{ url: URL; headers: Record<string, unknown> }> = [];
let mode: 'ok' | 'error' | 'badjson' | 'slow' | 'shape' = 'ok';
let server: Awaited<ReturnType<typeof startServer>>;

const RESULTS = [
  { url: 'https://shop.example.com/p/1', title: 'Acme Widget', content: 'Acme Widget 3000' },
  { url: 'https://shop.example.com/p/1', title: 'duplicate', content: '' },
  { url: 'https://blocked.example.org/p/2', title: 'blocked', content: '' },
  { url: 'ftp://shop.example.com/file', title: 'not http', content: '' },
  { url: 'https://www.shop.example.com/p/3', title: 'subdomain', content: 'sub' },
  { url: 'https://other.example.net/p/4', title: 'outside the allow-list', content: '' },
];

beforeAll(async () => {
  server = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ url, headers: req.headers });
    if (mode === 'error') return res.writeHead(503, { 'content-type': 'text/plain' }).end('overloaded');
    if (mode === 'badjson') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"results": [');
    if (mode === 'shape') return res.writeHead(200, { 'content-type': 'application/json' }).end('{"unexpected": true}');
    if (mode === 'slow') return void setTimeout(() => res.writeHead(200).end('{}'), 1_000);
    if (url.pathname === '/search')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ query: url.searchParams.get('q'), results: RESULTS }));
    if (url.pathname === '/res/v1/web/search') {
      if (req.headers['x-subscription-token'] !== 'brave-key') return res.writeHead(401).end('{"error":"unauthorized"}');
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ type: 'search', web: { results: RESULTS.map((r) => ({ url: r.url, title: r.title, description: r.content })) } }));
    }
    return res.writeHead(404).end();
  });
});
afterAll(() => server.close());
beforeEach(() => {
  mode = 'ok';
  requests.length = 0;
});

const domains = { allowed_domains: ['shop.example.com', 'other.example.net'], blocked_domains: ['blocked.example.org', 'other.example.net'] };

test('site operators: allow-list as an OR group, block-list negated', () => {
  expect(withSiteOperators('acme widget', { limit: 5, ...domains })).toBe(
    'acme widget (site:shop.example.com OR site:other.example.net) -site:blocked.example.org -site:other.example.net',
  );
  expect(withSiteOperators('acme', { limit: 5, allowed_domains: ['a.com'] })).toBe('acme site:a.com');
  expect(withSiteOperators('acme', { limit: 5 })).toBe('acme');
});

describe('SearXNG', () => {
  test('sends q with site operators and format=json; filters, dedupes and limits results', async () => {
    const search = createSearxngSearch(server.url('/'), 500);
    const results = await search.search('acme widget', { limit: 5, ...domains });
    expect(requests[0].url.pathname).toBe('/search');
    expect(requests[0].url.searchParams.get('format')).toBe('json');
    expect(requests[0].url.searchParams.get('q')).toContain('site:shop.example.com');
    expect(results.map((r) => r.url)).toEqual(['https://shop.example.com/p/1', 'https://www.shop.example.com/p/3']);
    expect(results[0]).toMatchObject({ title: 'Acme Widget', snippet: 'Acme Widget 3000', score: 1 });
    expect(await search.search('acme', { limit: 1 })).toHaveLength(1);
  });

  test.each([
    ['error', /HTTP 503: overloaded/],
    ['badjson', /not JSON/],
    ['shape', /no results list/],
    ['slow', /timed out after 300 ms/],
  ] as const)('%s → SearchError', async (m, message) => {
    mode = m;
    const search = createSearxngSearch(server.url(''), 300);
    await expect(search.search('acme', { limit: 5 })).rejects.toThrow(SearchError);
    await expect(search.search('acme', { limit: 5 })).rejects.toThrow(message);
  });
});

describe('Brave Search API', () => {
  test('GET /res/v1/web/search with X-Subscription-Token and count; same filtering', async () => {
    const search = createBraveSearch('brave-key', server.url('/res/v1/web/search'), 500);
    const results = await search.search('acme widget', { limit: 3, ...domains });
    expect(requests[0].headers['x-subscription-token']).toBe('brave-key');
    expect(requests[0].url.searchParams.get('count')).toBe('3');
    expect(requests[0].url.searchParams.get('q')).toContain('-site:blocked.example.org');
    expect(results.map((r) => r.url)).toEqual(['https://shop.example.com/p/1', 'https://www.shop.example.com/p/3']);
  });

  test('a bad key is a SearchError naming the status', async () => {
    const search = createBraveSearch('wrong', server.url('/res/v1/web/search'), 500);
    await expect(search.search('acme', { limit: 3 })).rejects.toThrow(/Brave search failed: HTTP 401/);
  });
});

test('the engine records a failing search provider and still returns a result', async () => {
  mode = 'error';
  const fetcher: Fetcher = {
    fetch: async (url) => ({ url, final_url: url, status: 404, content_type: 'text/html', body: Buffer.alloc(0), fetched_at: new Date(0).toISOString() }),
  };
  const engine = createEngine({ search: createSearxngSearch(server.url('/'), 300), fetcher });
  const { result, evidence, usage } = await engine.enrich({
    item: { name: 'Acme Widget 3000' },
    output_schema: [{ name: 'brand', type: 'string', description: 'Brand' }],
    options: { speed: 'fast', web_search: true },
  });
  expect(result.error).toBeUndefined();
  expect(evidence.problems?.[0]).toMatch(/search "Acme Widget 3000": SearXNG search failed: HTTP 503/);
  expect(result.review_info.flags).toContain('research_problems');
  expect(result.review_info.reasoning).toMatch(/Research problems/);
  expect(usage.search_calls).toBe(1);
});
