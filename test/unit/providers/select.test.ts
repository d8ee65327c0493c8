import fs from 'node:fs';
import { bundledGoogleTaxonomy, loadConfig } from '../../../src/config';
import { combineSources, researchProviders } from '../../../src/enrichment/providers';
import { createFetchState } from '../../../src/services/fetching/live-fetcher';
import { configuredSources, describeSources } from '../../../src/services/research-archives/sources';
import { startServer } from './fixtures';
import { closeTestKnex, testKnex } from '../../helpers/db';

afterAll(() => closeTestKnex());

test('defaults: archive search, conservative fetch limits, private addresses refused', () => {
  const config = loadConfig({});
  expect(config.search).toMatchObject({
    provider: 'archive',
    searxngUrl: null,
    braveApiKey: null,
    braveApiUrl: 'https://api.search.brave.com/res/v1/web/search',
  });
  expect(config.fetch).toMatchObject({
    allowPrivate: false,
    maxRedirects: 5,
    perHostConcurrency: 2,
    hostIntervalMs: 1000,
    maxAgeS: 172_800,
    robotsCacheS: 86_400,
    itemUrls: true,
  });
  expect(loadConfig({ FETCH_ITEM_URLS: 'false' }).fetch.itemUrls).toBe(false);
  expect(config.render).toMatchObject({ chromiumPath: '/usr/bin/chromium', concurrency: 1 });
  expect(() => loadConfig({ SEARCH_PROVIDER: 'google' })).toThrow(/SEARCH_PROVIDER/);
});

test('missing settings of a live provider are refused', () => {
  expect(() => researchProviders(loadConfig({ SEARCH_PROVIDER: 'searxng' }))).toThrow(/SEARXNG_URL/);
  expect(() => researchProviders(loadConfig({ SEARCH_PROVIDER: 'brave' }))).toThrow(/BRAVE_API_KEY/);
  expect(() => researchProviders(loadConfig({ SEARCH_PROVIDER: 'searxng', SEARXNG_URL: 'http://127.0.0.1:1' }))).toThrow(/needs the database/);
});

test('SEARCH_PROVIDER=brave with BRAVE_API_URL and FETCH_ALLOW_PRIVATE searches and fetches live', async () => {
  const server = await startServer((req, res) => {
    if (req.url?.startsWith('/res/v1/web/search')) {
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ web: { results: [{ url: server.url('/p'), title: 'P', description: '' }] } }));
    }
    return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>P</title></html>');
  });
  try {
    const config = loadConfig({ SEARCH_PROVIDER: 'brave', BRAVE_API_KEY: 'k', BRAVE_API_URL: server.url('/res/v1/web/search'), FETCH_ALLOW_PRIVATE: 'true' });
    const { search, fetcher } = researchProviders(config, { fetchState: createFetchState(testKnex(), config.fetch) });
    const [hit] = await search.search('p', { limit: 5 });
    expect(hit.url).toBe(server.url('/p'));
    expect((await fetcher.fetch(hit.url)).status).toBe(200);
  } finally {
    await server.close();
  }
});

test('a clone without ../shared has no archive and still gets providers (search finds nothing, fetch answers 404) and the shipped Google taxonomy', async () => {
  const config = loadConfig({ SHARED_DATA_DIR: '/nonexistent/shared/data' });
  expect(config.researchArchives).toEqual([]);
  expect(config.googleTaxonomyFile).toBe(bundledGoogleTaxonomy());
  expect(fs.readFileSync(config.googleTaxonomyFile!, 'utf8')).toMatch(/^# Google_Product_Taxonomy_Version: \d{4}-\d{2}-\d{2}\n1 - Animals & Pet Supplies\n/);
  const { search, fetcher } = researchProviders(config);
  expect(await search.search('anything', { limit: 5 })).toEqual([]);
  expect((await fetcher.fetch('https://example.com/p')).status).toBe(404);
});

test('combined sources interleave search results by rank (a URL once) and fetch from the first that has the page', async () => {
  const page = (url: string, status: number) => ({ url, final_url: url, status, content_type: 'text/html', body: Buffer.from(url), fetched_at: '' });
  const source = (urls: string[], has: string) => ({
    search: { search: async () => urls.map((url, i) => ({ url, title: '', snippet: '', score: 1 / (i + 1) })) },
    fetcher: { fetch: async (url: string) => page(url, url === has ? 200 : 404) },
  });
  const both = combineSources([source(['a', 'b', 'c'], 'a'), source(['x', 'a', 'y'], 'x')]);
  expect((await both.search.search('q', { limit: 5 })).map((r) => r.url)).toEqual(['a', 'x', 'b', 'c', 'y']);
  expect((await both.fetcher.fetch('x')).status).toBe(200);
  expect((await both.fetcher.fetch('zzz')).status).toBe(404);
});

test('a combined source whose search fails leaves the others results; only all failing throws', async () => {
  const ok = { search: { search: async () => [{ url: 'a', title: '', snippet: '', score: 1 }] }, fetcher: { fetch: async () => ({}) as never } };
  const down = {
    search: {
      search: async (): Promise<never> => {
        throw new Error('search API down');
      },
    },
    fetcher: ok.fetcher,
  };
  const told: string[] = [];
  expect((await combineSources([ok, down]).search.search('q', { limit: 5, onSourceError: (m) => told.push(m) })).map((r) => r.url)).toEqual(['a']);
  expect(told).toEqual(['search API down']);
  await expect(combineSources([down, down]).search.search('q', { limit: 5 })).rejects.toThrow('search API down');
});

test('the default configuration reads item URLs live (search stays offline); FETCH_ITEM_URLS=false reads them only from archives', async () => {
  const paths: string[] = [];
  const server = await startServer((req, res) => {
    paths.push(req.url ?? '/');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><title>P</title></html>');
  });
  try {
    const config = loadConfig({ SHARED_DATA_DIR: '/nonexistent/shared/data', FETCH_ALLOW_PRIVATE: 'true', FETCH_HOST_INTERVAL_MS: '0' });
    const on = researchProviders(config, { fetchState: createFetchState(testKnex(), config.fetch) });
    expect(await on.itemFetcher.fetch(server.url('/p'))).toMatchObject({ status: 200, outcome: 'ok' });
    // Search results are still read only from the (absent) archives: the default configuration searches nothing live.
    expect((await on.fetcher.fetch(server.url('/p'))).status).toBe(404);
    const off = researchProviders({ ...config, fetch: { ...config.fetch, itemUrls: false } }, { fetchState: createFetchState(testKnex(), config.fetch) });
    expect((await off.itemFetcher.fetch(server.url('/q'))).status).toBe(404);
    expect(paths).not.toContain('/q');
    expect(paths.filter((p) => p === '/p')).toHaveLength(1);
  } finally {
    await server.close();
  }
});

test('readiness and the banner say whether item URLs are fetched', () => {
  const on = configuredSources(loadConfig({ SHARED_DATA_DIR: '/nonexistent/shared/data' }));
  expect(on).toMatchObject({ live_search: null, item_urls: true });
  expect(describeSources(on)).toContain('item URLs: fetched (live fetcher, robots.txt obeyed)');
  const off = configuredSources(loadConfig({ SHARED_DATA_DIR: '/nonexistent/shared/data', FETCH_ITEM_URLS: 'false' }));
  expect(off.item_urls).toBe(false);
  expect(describeSources(off)).toContain('item URLs: off (FETCH_ITEM_URLS=false)');
});
